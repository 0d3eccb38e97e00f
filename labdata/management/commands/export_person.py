from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from labdata.exporter import export_person
from people.models import Person


class Command(BaseCommand):
    help = (
        "Write one member's lab file (demo/README.md format): their profile, "
        "publications and events, with the topics, organisations and venues "
        "those name, so that the file loads on its own."
    )

    def add_arguments(self, parser) -> None:
        parser.add_argument("slug", help="The member's slug, as in /people/<slug>/.")
        parser.add_argument(
            "-o",
            "--output",
            type=Path,
            help="File to write (default: standard output).",
        )

    def handle(self, *args, slug: str, output: Path | None, **options) -> None:
        person = Person.objects.filter(slug=slug).first()
        if person is None:
            raise CommandError(f"No member with the slug {slug!r}.")
        text = export_person(person)
        if output is None:
            self.stdout.write(text, ending="")
            return
        try:
            output.write_text(text, encoding="utf-8")
        except OSError as exc:
            raise CommandError(f"Cannot write {output}: {exc.strerror}") from None
        if options["verbosity"] > 0:
            self.stderr.write(f"Wrote {person.display_name} to {output}.")
