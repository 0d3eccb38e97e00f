from django.apps import AppConfig


class PublicationsConfig(AppConfig):
    default_auto_field = "django.db.models.BigAutoField"
    name = "publications"

    def ready(self) -> None:
        # Imported here, not above: they load models, which Django loads only
        # after every app's config.
        from publications import jobs, keys, search
        from search.registration import watch_models
        from search.registry import derive

        search.register()
        # A work's citation key follows its first author, year and title.
        derive("publication", after_index=keys.assign, after_rebuild=keys.report)
        watch_models(self)
        jobs.register_jobs()
