"""The bulk write of a settled plan: new venues, records, authorships and links."""

from dataclasses import dataclass, field
from datetime import datetime
from operator import attrgetter

from django.db import connection
from django.db.models import Max
from django.utils import timezone

from core.bulk import chunks, insert_rows
from publications.importing.members import AuthorPlan
from publications.importing.planner import ID_CHUNK, Planner
from publications.models import Authorship, Publication, PublicationLink
from search.indexing import deferred, index

_BATCH = 500
_AUTHORSHIP_COLUMNS = [
    "publication",
    "position",
    "name",
    "family_name",
    "person",
    "equal_contribution",
    "corresponding",
]
_LINK_COLUMNS = ["publication", "kind", "label", "url", "position"]


@dataclass
class _Rows:
    """What one import inserts, updates and replaces."""

    authorships: list[tuple] = field(default_factory=list)
    links: list[tuple] = field(default_factory=list)
    updated: list[Publication] = field(default_factory=list)
    fields: set[str] = field(default_factory=lambda: {"updated_at"})
    replaced: list[int] = field(default_factory=list)
    person_fills: list[Authorship] = field(default_factory=list)


def write_plan(planner: Planner) -> None:
    """Write what `planner` settled, in the caller's transaction, and index it."""
    now = timezone.now()
    with deferred():
        for venue in planner.new_venues:
            venue.save()
        created = [plan.publication for plan in planner.creates]
        _insert_publications(created, now)
        for item, publication in zip(planner.report.created, created, strict=True):
            item.publication = publication
        rows = _Rows()
        for plan in planner.creates:
            rows.authorships += _authorship_rows(plan.publication.pk, plan.authors)
            if plan.values.url:
                rows.links.append(_link_row(plan.publication.pk, plan.values.url, 0))
        _collect_updates(planner, rows, now)
        people = _write_rows(planner, rows)
        # Bulk writes send no signals: index what they touched, once.
        index("publication", [p.pk for p in created] + [p.pk for p in rows.updated])
        index("person", people)


def _collect_updates(planner: Planner, rows: _Rows, now: datetime) -> None:
    for plan, record, changes in planner.updates:
        record.updated_at = now
        rows.fields |= set(changes) - {"authors", "link"}
        rows.updated.append(record)
        wanted = planner.author_changes.get(record.pk)
        if wanted and isinstance(wanted[0], AuthorPlan):
            rows.replaced.append(record.pk)
            rows.authorships += _authorship_rows(record.pk, wanted)
        elif wanted:
            rows.person_fills += wanted
        if "link" in changes:
            position = len(planner.current_links[record.pk])
            rows.links.append(_link_row(record.pk, plan.values.url, position))


def _write_rows(planner: Planner, rows: _Rows) -> set[int]:
    """Write the collected rows; return the members whose authorships changed."""
    Publication.objects.bulk_update(
        rows.updated, sorted(rows.fields), batch_size=_BATCH
    )
    people = {
        row["person_id"]
        for pk in rows.replaced
        for row in planner.current_authors[pk]
        if row["person_id"]
    }
    for chunk in chunks(rows.replaced, ID_CHUNK):
        Authorship.objects.filter(publication_id__in=chunk).delete()
    insert_rows(Authorship, _AUTHORSHIP_COLUMNS, rows.authorships)
    Authorship.objects.bulk_update(rows.person_fills, ["person"], batch_size=_BATCH)
    insert_rows(PublicationLink, _LINK_COLUMNS, rows.links)
    people |= {row[4] for row in rows.authorships if row[4]}
    people |= {a.person_id for a in rows.person_fills}
    return people


def _authorship_rows(publication_id: int, authors: list[AuthorPlan]) -> list[tuple]:
    return [
        (
            publication_id,
            position,
            author.name,
            author.family_name,
            author.person.pk if author.person else None,
            author.equal_contribution,
            author.corresponding,
        )
        for position, author in enumerate(authors, start=1)
    ]


def _link_row(publication_id: int, url: str, position: int) -> tuple:
    return (publication_id, PublicationLink.Kind.PAPER.value, "", url, position)


def _insert_publications(publications: list[Publication], now: datetime) -> None:
    """Insert validated publications and give each its new primary key."""
    fields = [f for f in Publication._meta.concrete_fields if not f.primary_key]
    for publication in publications:
        publication.updated_at = publication.retrieved_at = now
        # Venues saved since the plan lend their ids, as save() would do.
        publication.venue_id = publication.venue.pk if publication.venue else None
    values = attrgetter(*(f.attname for f in fields))
    rows = [values(publication) for publication in publications]
    if not publications:
        return
    # Ids only grow, so the new rows are those above today's largest; their slugs
    # (unique, chosen by the planner) tell which publication got which.
    newest = Publication.objects.aggregate(newest=Max("pk"))["newest"] or 0
    # insert_rows prepares each value as bulk_create would but returns no ids:
    # the slugs find them below.
    insert_rows(Publication, [f.name for f in fields], rows)
    by_slug = {p.slug: p for p in publications}
    for slug, pk in Publication.objects.filter(pk__gt=newest).values_list("slug", "pk"):
        if slug in by_slug:
            publication = by_slug[slug]
            publication.pk = pk
            publication._state.adding = False
            publication._state.db = connection.alias
