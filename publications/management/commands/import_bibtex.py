import logging
import time
from pathlib import Path

from django.core.management.base import BaseCommand, CommandError, OutputWrapper

from people.models import Person
from publications.bibtex.parser import decode_bytes
from publications.services import (
    BibtexImportError,
    ImportReport,
    publication_import_bibtex,
)


class Command(BaseCommand):
    help = (
        "Create or update publications from a BibTeX file, in one transaction: "
        "a malformed entry stops the import and nothing is written."
    )

    def add_arguments(self, parser) -> None:
        parser.add_argument("file", type=Path, help="The .bib file (UTF-8).")
        parser.add_argument(
            "--person",
            metavar="SLUG",
            help="A member who is an author of every entry (their list of papers).",
        )
        parser.add_argument(
            "--source",
            help="The name recorded as the entries' source; the file's name if "
            "omitted. Re-importing the same source updates its records.",
        )
        parser.add_argument(
            "--dry-run", action="store_true", help="Report, but write nothing."
        )
        parser.add_argument(
            "--skip-invalid",
            action="store_true",
            help="Import the readable entries and list the others.",
        )
        parser.add_argument(
            "--keep-private",
            action="store_true",
            help="Also store the fields a reference manager adds for its owner "
            "(file, annote, comment, owner, groups…); never shown on the site.",
        )

    def handle(self, *args, **options) -> None:
        path: Path = options["file"]
        try:
            text = decode_bytes(path.read_bytes())
        except OSError as exc:
            raise CommandError(f"Cannot read {path}: {exc.strerror or exc}") from None
        person = None
        if options["person"]:
            person = Person.objects.filter(slug=options["person"]).first()
            if person is None:
                raise CommandError(f"No member has the slug {options['person']!r}.")
        bar = None
        if options["verbosity"] > 0 and self.stdout.isatty():
            bar = _ProgressBar(self.stdout)
        started = time.perf_counter()
        # bibtexparser logs each broken block; the report below says it better.
        parser_log = logging.getLogger("bibtexparser")
        level = parser_log.level
        parser_log.setLevel(logging.ERROR)
        try:
            report = publication_import_bibtex(
                text=text,
                source=options["source"] or path.name,
                person=person,
                dry_run=options["dry_run"],
                skip_invalid=options["skip_invalid"],
                keep_private=options["keep_private"],
                progress=bar,
            )
        except BibtexImportError as exc:
            raise CommandError(
                f"{exc}\nFix these entries, or use --skip-invalid to import the rest."
            ) from None
        finally:
            parser_log.setLevel(level)
            if bar is not None:
                bar.close()
        if options["verbosity"] > 0:
            self._print(report, options["verbosity"], time.perf_counter() - started)

    def _print(self, report: ImportReport, verbosity: int, seconds: float) -> None:
        out = self.stdout.write
        if verbosity > 1:
            for label, items in (
                ("created", report.created),
                ("updated", report.updated),
            ):
                for item in items:
                    changes = f" ({', '.join(item.changes)})" if item.changes else ""
                    out(f"  {label}: {item.title} [{item.key}]{changes}")
        for venue in report.venues_created:
            out(f"  new venue: {venue}")
        for skipped in report.skipped + report.invalid:
            out(self.style.WARNING(f"  skipped {skipped}"))
        for missing in report.person_missing:
            out(self.style.WARNING(f"  member not found: {missing}"))
        for ambiguous in report.ambiguous:
            out(
                self.style.WARNING(
                    f"  ambiguous: line {ambiguous.line}, {ambiguous.key}: "
                    f"“{ambiguous.author}” could be {' or '.join(ambiguous.candidates)}"
                    " (left unlinked)"
                )
            )
        for warning in report.warnings:
            out(f"  note: {warning}")
        out(self.style.SUCCESS(f"{report.summary()} in {seconds:.2f} s."))


class _ProgressBar:
    """A one-line bar redrawn in place; only used when output is a terminal."""

    width = 30

    def __init__(self, stream: OutputWrapper) -> None:
        self.stream = stream
        self.drawn = False

    def __call__(self, done: int, total: int) -> None:
        filled = self.width * done // max(total, 1)
        bar = "#" * filled + "." * (self.width - filled)
        self.stream.write(f"\r[{bar}] {done}/{total} entries", ending="")
        self.stream.flush()
        self.drawn = True

    def close(self) -> None:
        if self.drawn:
            self.stream.write("")
