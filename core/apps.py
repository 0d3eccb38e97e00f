from django.apps import AppConfig


class CoreConfig(AppConfig):
    name = "core"
    # The app began inside the project package: its label keeps the tables, the
    # migration history and the permission names (directory.change_topic) it had.
    label = "directory"
    verbose_name = "Directory (topics and organisations)"

    def ready(self) -> None:
        from core import cache, health
        from core.models import Lab, Organization, Topic

        cache.watch(Topic, Organization, Lab)
        health.register_defaults()
