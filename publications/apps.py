from django.apps import AppConfig


class PublicationsConfig(AppConfig):
    default_auto_field = "django.db.models.BigAutoField"
    name = "publications"

    def ready(self) -> None:
        # Imported here, not above: they load models, which Django loads only
        # after every app's config.
        from core import cache
        from publications import search
        from search.models import SearchDocument

        search.register()
        # Every model but the search documents, which are derived from the others.
        cache.watch(
            *(m for m in self.get_models() if not issubclass(m, SearchDocument))
        )
