"""Workflows that write publications together with their venues, authors and links.

This is the app's public entry: other apps call these functions and use the names
re-exported here (matching printed names to members, venues by any of their names,
the folding both compare by, the per-year counts a member's page draws), never the
modules of `publications.importing` or the others behind these names.
"""

import datetime
from collections.abc import Callable
from contextlib import nullcontext

from django.db import transaction
from django.utils import timezone

from core.bulk import without_cycle_collection
from core.models import Topic
from core.slugs import slug_of, unique_slug
from people.models import Person
from publications.bibtex.fields import CONTAINER_TYPES
from publications.bibtex.names import fold
from publications.charts import citations_per_year, publications_per_year
from publications.importing.members import Members, printed_name
from publications.importing.planner import Planner
from publications.importing.report import (
    AmbiguousAuthor,
    ImportedItem,
    ImportReport,
    InvalidEntry,
    SkippedEntry,
)
from publications.importing.venues import Venues
from publications.importing.writer import write_plan
from publications.models import Authorship, Publication, PublicationLink, Venue
from search.indexing import deferred, schedule

__all__ = [
    "AmbiguousAuthor",
    "BibtexImportError",
    "ImportReport",
    "ImportedItem",
    "Members",
    "SkippedEntry",
    "Venues",
    "citations_per_year",
    "fold",
    "printed_name",
    "publication_from_source",
    "publication_import_bibtex",
    "publications_per_year",
    "publication_refresh_source_facts",
    "publication_save",
    "publication_set_authors",
    "venue_for",
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
    keep_private: bool = False,
    progress: Progress | None = None,
) -> ImportReport:
    """Create or update a publication per entry of a BibTeX file; all or nothing.

    Each record keeps its entry's public fields only, unless `keep_private` (a
    reference manager's notes, file paths, groups…; stored, never shown)."""
    # Imported here: the parser brings pylatexenc, which only imports need.
    from publications.bibtex.parser import parse_bibtex

    source = source.strip()[:200]
    report = ImportReport(source=source, dry_run=dry_run)
    parsed = parse_bibtex(text, keep_private=keep_private)
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
            publication_set_authors(publication=publication, authorships=authorships)
        if links is not None:
            publication.links.all().delete()
            for link in link_rows:
                link.save()
    return publication


def publication_set_authors(
    *, publication: Publication, authorships: list[Authorship]
) -> None:
    """Replace a saved publication's authors (and the members they link) in order."""
    publication.authorships.all().delete()
    Authorship.objects.bulk_create(authorships)
    # bulk_create sends no signals: the new authors' members are stale.
    schedule("person", [a.person_id for a in authorships])
    schedule("publication", [publication.pk])


# The fields a source's update may change; metrics and ids at the source are
# refreshed as they come (they are the source's facts, never edited here).
SOURCE_FIELDS = (
    "title",
    "kind",
    "year",
    "month",
    "venue",
    "doi",
    "openalex_id",
    "arxiv_id",
    "abstract",
    "authors",
    "topics",
)


def venue_for(text: str, kind: str, venues: Venues) -> Venue | None:
    """Return the venue a text names, saving a new one when none exists."""
    venue = venues.resolve(text, kind)
    for new in venues.new:
        new.save()
    venues.new.clear()
    return venue


def publication_from_source(
    *,
    values: dict,
    instance: Publication | None = None,
    fields: list[str] | None = None,
    source: str,
    source_id: str,
    venues: Venues | None = None,
) -> Publication:
    """Create a publication from a source's values, or change `fields` of one.

    `values["authors"]` lists `{"name", "person"}` (a member's pk or None) in order;
    `venues` keeps the venues known so far across many calls."""
    now = timezone.now()
    pub = instance
    if pub is None:
        pub = _new_from_source(values, source=source, source_id=source_id, now=now)
        fields = [f for f in SOURCE_FIELDS if values.get(f) not in (None, "", [])]
        fields.append("month")
    for field in fields or []:
        if field == "venue":
            pub.venue = venue_for(
                values["venue"], values.get("venue_kind") or "other", venues or Venues()
            )
            pub.venue_detail = ""
        elif field not in ("authors", "topics"):
            setattr(pub, field, values.get(field))
    _refresh_source_facts(pub, values, now)
    # The slug is unique by construction and the checks on year and month are the
    # fields' own validators: the database's constraints need no query first.
    pub.full_clean(validate_unique=False, validate_constraints=False)
    pub.save()
    if "authors" in (fields or []):
        publication_set_authors(
            publication=pub,
            authorships=[
                Authorship(
                    publication=pub,
                    position=i,
                    name=a["name"][:200],
                    person_id=a["person"],
                )
                for i, a in enumerate(values["authors"], start=1)
            ],
        )
    if "topics" in (fields or []):
        pub.topics.add(*values["topics"])
    if instance is None and values.get("oa_url"):
        PublicationLink.objects.create(
            publication=pub,
            kind=PublicationLink.Kind.PDF
            if "pdf" in values["oa_url"].lower()
            else PublicationLink.Kind.PAPER,
            label="Open access",
            url=values["oa_url"][:500],
        )
    return pub


def _new_from_source(
    values: dict, *, source: str, source_id: str, now: datetime.datetime
) -> Publication:
    """An unsaved publication for a source's work, with a slug no other has."""
    taken = set(
        Publication.objects.filter(
            slug__startswith=slug_of(values["title"])[:40]
        ).values_list("slug", flat=True)
    )
    return Publication(
        slug=unique_slug(values["title"], taken, 120, fallback=f"{source}-{source_id}"),
        status=Publication.Status.PREPRINT
        if values["kind"] == Publication.Kind.PREPRINT
        else Publication.Status.PUBLISHED,
        authors_complete=values.get("authors_complete", True),
        source=source,
        source_id=source_id,
        retrieved_at=now,
    )


def publication_refresh_source_facts(*, publication: Publication, values: dict) -> None:
    """Store a source's citation counts and ORCID put-code on a matched record."""
    facts = ("cited_by_count", "counts_by_year", "orcid_put_codes")
    before = [getattr(publication, name) for name in facts]
    now = timezone.now()
    _refresh_source_facts(publication, values, now)
    changed = [getattr(publication, name) for name in facts] != before
    if values.get("cited_by_count") is None and not changed:
        return
    written = {name: getattr(publication, name) for name in facts}
    written["citations_retrieved_at"] = publication.citations_retrieved_at
    if changed:
        # New counts are a new version: its ETag and Last-Modified change.
        publication.updated_at = written["updated_at"] = now
    Publication.objects.filter(pk=publication.pk).update(**written)


def _refresh_source_facts(
    pub: Publication, values: dict, now: datetime.datetime
) -> None:
    if values.get("cited_by_count") is not None:
        pub.cited_by_count = values["cited_by_count"]
        pub.counts_by_year = values.get("counts_by_year") or []
        pub.citations_retrieved_at = now
    code = values.get("put_code")
    if code is not None and code not in pub.orcid_put_codes:
        pub.orcid_put_codes = [*pub.orcid_put_codes, code]
