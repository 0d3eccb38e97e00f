from django.core.management.base import BaseCommand

from jobs.services import reap_jobs


class Command(BaseCommand):
    help = (
        "Mark failed the running jobs that reported nothing for longer than their "
        "kind's time limit (their process ended without finishing them)."
    )

    def handle(self, *args, **options) -> None:
        reaped = reap_jobs()
        self.stdout.write(
            f"{reaped} lost job{'' if reaped == 1 else 's'} marked failed."
        )
