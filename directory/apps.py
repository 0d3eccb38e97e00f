from django.apps import AppConfig


class DirectoryConfig(AppConfig):
    name = "directory"
    verbose_name = "Directory (topics and organisations)"

    def ready(self) -> None:
        from directory import cache
        from directory.search import signals

        signals.connect()
        cache.connect()
