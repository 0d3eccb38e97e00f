from django.apps import AppConfig


class EventsConfig(AppConfig):
    default_auto_field = "django.db.models.BigAutoField"
    name = "events"

    def ready(self) -> None:
        from core import cache
        from events import search
        from search.models import SearchDocument

        search.register()
        # Every model but the search documents, which are derived from the others.
        cache.watch(
            *(m for m in self.get_models() if not issubclass(m, SearchDocument))
        )
