from django.apps import AppConfig


class PeopleConfig(AppConfig):
    default_auto_field = "django.db.models.BigAutoField"
    name = "people"

    def ready(self) -> None:
        # Imported here, not above: they load models, which Django loads only
        # after every app's config.
        from people import search
        from search.registration import watch_models

        search.register()
        watch_models(self)
