from django.apps import AppConfig


class PeopleConfig(AppConfig):
    default_auto_field = "django.db.models.BigAutoField"
    name = "people"

    def ready(self) -> None:
        from core import cache
        from people import search
        from search.models import SearchDocument

        search.register()
        # Every model but the search documents, which are derived from the others.
        cache.watch(
            *(m for m in self.get_models() if not issubclass(m, SearchDocument))
        )
