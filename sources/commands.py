"""What the import commands share: options, reading files, one clear error."""

from pathlib import Path

from django.core.management.base import BaseCommand, CommandError, CommandParser

from people.models import Person
from sources.http import SourceError
from sources.importer import ImportProblem, ImportReport
from sources.progress import terminal_progress
from sources.targets import WriteError

# Everything an import can fail with, short of a bug: each is one clear line.
IMPORT_ERRORS = (SourceError, ImportProblem, WriteError)


class ImportCommand(BaseCommand):
    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument(
            "--person", metavar="SLUG", help="The member the records belong to."
        )
        parser.add_argument(
            "--accept",
            action="store_true",
            help="Write what is new or changed at once, instead of queueing it for "
            "review (fields edited by hand still go to review).",
        )
        parser.add_argument(
            "--dry-run", action="store_true", help="Report, but write nothing."
        )

    def person(self, slug: str | None) -> Person | None:
        if not slug:
            return None
        try:
            return Person.objects.get(slug=slug)
        except Person.DoesNotExist:
            raise CommandError(f"No member has the slug {slug!r}.") from None

    def read(self, path: str) -> bytes:
        try:
            return Path(path).read_bytes()
        except OSError as exc:
            raise CommandError(f"{path}: cannot be read ({exc.strerror})") from None

    def progress(self):
        return terminal_progress(self.stdout)

    def finish(self, report: ImportReport) -> None:
        self.stdout.write(report.summary())
        if report.errors:
            count = len(report.errors)
            raise CommandError(
                f"{count} record{'s' if count > 1 else ''} could not be read; "
                "see above (the others were imported)"
            )
