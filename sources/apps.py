from django.apps import AppConfig


class SourcesConfig(AppConfig):
    default_auto_field = "django.db.models.BigAutoField"
    name = "sources"
    verbose_name = "Sources (ORCID, OpenAlex)"

    def ready(self) -> None:
        from sources.jobs import register_jobs

        register_jobs()
