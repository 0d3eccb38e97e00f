"""Workflows that write publications together with their venues, authors and links."""

from collections.abc import Callable
from contextlib import nullcontext

from django.db import transaction

from core.bulk import without_cycle_collection
from people.models import Person
from publications.bibtex import CONTAINER_TYPES, parse_bibtex
from publications.importing.planner import Planner
from publications.importing.report import (
    AmbiguousAuthor,
    ImportedItem,
    ImportReport,
    InvalidEntry,
    SkippedEntry,
)
from publications.importing.writer import write_plan

__all__ = [
    "AmbiguousAuthor",
    "BibtexImportError",
    "ImportReport",
    "ImportedItem",
    "SkippedEntry",
    "publication_import_bibtex",
]

Progress = Callable[[int, int], None]


class BibtexImportError(Exception):
    """A file with entries that cannot be imported; nothing was written."""

    def __init__(self, problems: list[SkippedEntry]) -> None:
        self.problems = problems
        lines = "\n".join(f"  {problem}" for problem in problems)
        super().__init__(
            f"{len(problems)} entr{'y' if len(problems) == 1 else 'ies'} cannot be "
            f"imported, so nothing was written:\n{lines}"
        )


@without_cycle_collection()
def publication_import_bibtex(
    *,
    text: str,
    source: str,
    person: Person | None = None,
    dry_run: bool = False,
    skip_invalid: bool = False,
    progress: Progress | None = None,
) -> ImportReport:
    """Create or update a publication per entry of a BibTeX file; all or nothing."""
    source = source.strip()[:200]
    report = ImportReport(source=source, dry_run=dry_run)
    parsed = parse_bibtex(text)
    report.warnings.extend(parsed.warnings)
    problems = [SkippedEntry(p.key, p.line, p.message) for p in parsed.errors]
    # One transaction from the first read to the last write, so that the plan is
    # still true when it is written; a dry run writes nothing and needs none.
    with nullcontext() if dry_run else transaction.atomic():
        planner = Planner(source=source, person=person, report=report)
        total = len(parsed.entries)
        for done, entry in enumerate(parsed.entries, start=1):
            if entry.key.lower() in parsed.crossref_parents and (
                entry.entry_type in CONTAINER_TYPES
            ):
                report.skipped.append(
                    SkippedEntry(entry.key, entry.line, "a volume other entries cite")
                )
            else:
                try:
                    planner.plan(entry)
                except InvalidEntry as exc:
                    problems.append(SkippedEntry(entry.key, entry.line, str(exc)))
            if progress and (done % 200 == 0 or done == total):
                progress(done, total)
        problems.sort(key=lambda problem: problem.line)
        if problems and not skip_invalid:
            raise BibtexImportError(problems)
        report.invalid = problems
        planner.finish()
        if not dry_run:
            write_plan(planner)
    return report
