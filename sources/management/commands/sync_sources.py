from django.core.management.base import BaseCommand, CommandError, CommandParser
from django.db.models import Q

from people.models import Person
from sources.progress import terminal_progress
from sources.sync import sync_person


class Command(BaseCommand):
    help = (
        "Refresh every member with an ORCID iD or an OpenAlex id: what is new or "
        "changed waits for review in the admin; citation counts are refreshed."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--person", metavar="SLUG", help="Only this member.")

    def handle(self, *args, **options) -> None:
        people = Person.objects.filter(~Q(orcid="") | ~Q(openalex_id="")).order_by(
            "slug"
        )
        if options["person"]:
            people = Person.objects.filter(slug=options["person"])
            if not people.exists():
                raise CommandError(f"No member has the slug {options['person']!r}.")
        progress = terminal_progress(self.stdout)
        errors = 0
        for person in people:
            report = sync_person(person, progress=progress)
            errors += report.errors
            self.stdout.write(report.summary())
        if errors:
            raise CommandError(
                f"{errors} source{'s' if errors > 1 else ''} failed; see above."
            )
