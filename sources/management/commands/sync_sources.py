from django.core.management.base import BaseCommand, CommandError, CommandParser

from jobs.services import describe, queue_configured, start_job
from people.models import Person
from sources.jobs import connected_members
from sources.progress import terminal_progress
from sources.sync import sync_person


class Command(BaseCommand):
    help = (
        "Refresh every member with an ORCID iD or an OpenAlex id: what is new or "
        "changed waits for review in the admin; citation counts are refreshed."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--person", metavar="SLUG", help="Only this member.")
        parser.add_argument(
            "--queue",
            action="store_true",
            help="Put the sync on the job queue for a worker (followed in the "
            "admin's Jobs) instead of running it here; without a configured "
            "broker it runs here all the same.",
        )

    def handle(self, *args, **options) -> None:
        people = connected_members()
        if options["person"]:
            people = Person.objects.filter(slug=options["person"])
            if not people.exists():
                raise CommandError(f"No member has the slug {options['person']!r}.")
        if options["queue"]:
            if queue_configured():
                return self.enqueue(people.get() if options["person"] else None)
            self.stdout.write(
                "No job queue is configured (CELERY_BROKER_URL): syncing here."
            )
        progress = terminal_progress(self.stdout)
        errors = 0
        for person in people:
            report = sync_person(person, progress=progress)
            errors += report.errors
            self.stdout.write(report.summary())
        if errors:
            raise CommandError(
                f"{errors} error{'s' if errors > 1 else ''} (a source or a record "
                "that failed); see above."
            )

    def enqueue(self, person: Person | None) -> None:
        if person is None:
            started = start_job("sources.sync_all")
        else:
            started = start_job("sources.sync_person", person)
        message, _ = describe(started)
        self.stdout.write(message)
