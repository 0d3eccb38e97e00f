from django.apps import AppConfig


class JobsConfig(AppConfig):
    name = "jobs"
    verbose_name = "Jobs"

    def ready(self) -> None:
        from core.health import register_check
        from jobs.health import broker_check

        # Not critical: without a broker the site serves, and work runs in the
        # foreground or waits (see jobs.services).
        register_check("broker", broker_check, critical=False)
