"""Workflows that write publications together with their venues, authors and links."""

from collections.abc import Callable
from contextlib import nullcontext

from django.db import transaction

from core.bulk import without_cycle_collection
from core.models import Topic
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
from publications.models import Authorship, Publication, PublicationLink
from search.indexing import deferred, schedule

__all__ = [
    "AmbiguousAuthor",
    "BibtexImportError",
    "ImportReport",
    "ImportedItem",
    "SkippedEntry",
    "publication_import_bibtex",
    "publication_save",
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
    problems = list(parsed.errors)
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


@transaction.atomic
def publication_save(
    *,
    instance: Publication | None,
    data: dict,
    topics: list[Topic] | None = None,
    authors: list[dict] | None = None,
    links: list[dict] | None = None,
) -> Publication:
    """Create (no instance) or update a publication; replace the relations given."""
    publication = Publication() if instance is None else instance
    for key, value in data.items():
        setattr(publication, key, value)
    publication.full_clean()
    # Every row is checked before anything is written, without its relations: the
    # publication may not be saved yet, and the person is an instance already.
    authorships = [Authorship(publication=publication, **a) for a in authors or []]
    link_rows = [
        PublicationLink(publication=publication, position=position, **link)
        for position, link in enumerate(links or [])
    ]
    for row in [*authorships, *link_rows]:
        row.full_clean(
            exclude=["publication", "person"],
            validate_unique=False,
            validate_constraints=False,
        )
    with deferred():
        publication.save()
        if topics is not None:
            publication.topics.set(topics)
        if authors is not None:
            publication.authorships.all().delete()
            Authorship.objects.bulk_create(authorships)
            # bulk_create sends no signals: the new authors' members are stale.
            schedule("person", [a.person_id for a in authorships])
            schedule("publication", [publication.pk])
        if links is not None:
            publication.links.all().delete()
            for link in link_rows:
                link.save()
    return publication
