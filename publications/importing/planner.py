"""The plan of an import: which entries create records, which change which, and how."""

from collections import defaultdict
from dataclasses import dataclass, field

from django.core.exceptions import ValidationError
from django.core.validators import URLValidator

from core.bulk import chunks
from core.slugs import unique_slug
from core.validation import validation_messages
from people.models import Person
from publications.bibtex.entries import ParsedEntry
from publications.bibtex.fields import Bibliographic, bibliographic
from publications.bibtex.names import fold
from publications.bibtex.writer import to_bibtex
from publications.importing.matching import IDENTIFYING, RecordIndex, Target
from publications.importing.members import AuthorPlan, Members, match_authors
from publications.importing.report import (
    ImportedItem,
    ImportReport,
    InvalidEntry,
    SkippedEntry,
)
from publications.importing.venues import Venues
from publications.models import Authorship, Publication, PublicationLink, Venue

# Keeps every `IN (…)` list within what any database accepts as parameters.
ID_CHUNK = 5000
# Slugs that a URL of the publications app already uses.
_RESERVED_SLUGS = {"export"}
_NAME_LENGTH = Authorship._meta.get_field("name").max_length
# The fields an entry gives, validated; what the import settles itself (slug, venue,
# kind, status from its own choices, provenance) or never sets keeps its default.
_ENTRY_FIELDS = {
    "title",
    "year",
    "month",
    "venue_detail",
    "doi",
    "arxiv_id",
    "pages",
    "volume",
    "number",
    "bibtex",
    "citation_key",
    "source_file",
    "source_id",
}
_NOT_VALIDATED = [
    f.name for f in Publication._meta.get_fields() if f.name not in _ENTRY_FIELDS
]
# Bibliographic fields: a record a file owns takes them all from the entry (see
# _plan_update); a record kept by hand only has its blanks filled.
_OWNED_FIELDS = [
    "title",
    "kind",
    "year",
    "month",
    "venue",
    "venue_detail",
    "status",
    "doi",
    "arxiv_id",
    "pages",
    "volume",
    "number",
    "authors_complete",
    "bibtex",
    "citation_key",
    "needs_review",
]
_FILLED_FIELDS = ["month", "venue", "doi", "arxiv_id", "pages", "volume", "number"]


@dataclass
class Plan:
    entry: ParsedEntry
    values: Bibliographic
    target: Target | None
    publication: Publication
    venue_text: str
    venue: Venue | None
    found_by: str = ""  # how `target` was found: "DOI", "citation key"…
    authors: list[AuthorPlan] = field(default_factory=list)


class Planner:
    """Plans every entry against the database as it is; writes nothing."""

    def __init__(
        self, *, source: str, person: Person | None, report: ImportReport
    ) -> None:
        self.source = source
        self.person = person
        self.report = report
        self.members = Members(Person.objects.all())
        self.venues = Venues()
        self.index = RecordIndex.of_existing(self.venues.labels())
        self.slugs = set(Publication.objects.values_list("slug", flat=True))
        self.slugs |= _RESERVED_SLUGS
        self.plans: list[Plan] = []
        self.url_validator = URLValidator()

    def plan(self, entry: ParsedEntry) -> None:
        """Plan one entry, or report it skipped; raise InvalidEntry if it is invalid."""
        values = bibliographic(entry)
        if values.title_from:
            entry.warnings.append(
                f"line {entry.line}, {entry.key}: no title; its {values.title_from} "
                f"stands in ({values.title!r}), marked for review"
            )
        target, how = self.index.find(values, entry.key, self.source)
        if target is not None and target.entry is not None:
            first = target.entry
            self.report.skipped.append(
                SkippedEntry(
                    entry.key,
                    entry.line,
                    f"the same work as {first.key} on line {first.line} (same {how})",
                )
            )
            return
        publication = self._validated(entry, values)
        if values.venue:
            venue = self.venues.resolve(values.venue, values.venue_kind)
        else:
            venue = self.venues.known(values.venue_detail)
        plan = Plan(entry, values, target, publication, values.venue, venue, how)
        if target is None:
            self.index.add(Target.of_entry(entry, values, self.source), entry.key)
        else:
            # An existing record is now spoken for: a later entry matching it again
            # is a duplicate within the file.
            target.entry = entry
        plan.authors = match_authors(
            entry, self.members, person=self.person, report=self.report
        )
        self.plans.append(plan)
        self.report.warnings.extend(entry.warnings)

    def _validated(self, entry: ParsedEntry, values: Bibliographic) -> Publication:
        publication = Publication(
            title=values.title,
            kind=values.kind,
            year=values.year,
            month=values.month,
            status=values.status,
            venue_detail=values.venue_detail,
            doi=values.doi,
            arxiv_id=values.arxiv_id,
            pages=values.pages,
            volume=values.volume,
            number=values.number,
            authors_complete=entry.authors_complete,
            bibtex=entry.text,
            citation_key=entry.key,
            source_file=self.source,
            source=Publication.Source.BIBTEX,
            source_id=entry.key,
            needs_review=bool(values.title_from),
            slug="unset",
        )
        try:
            # Uniqueness (the slug) and foreign keys are settled by the planner, and
            # the table's checks repeat field validators; checking them here would
            # cost a query per entry.
            publication.full_clean(
                exclude=_NOT_VALIDATED,
                validate_unique=False,
                validate_constraints=False,
            )
            # Names only have a length to respect; a full_clean per author would
            # cost more than the rest of the import.
            for author in entry.authors:
                for value in (author.name, author.family_name):
                    if len(value) > _NAME_LENGTH:
                        raise ValidationError(
                            f"the author name {value[:60]!r}… is longer than "
                            f"{_NAME_LENGTH} characters"
                        )
        except ValidationError as exc:
            raise InvalidEntry(validation_messages(exc)) from None
        if values.url and not self._valid_url(values.url):
            entry.warnings.append(
                f"line {entry.line}, {entry.key}: URL {values.url!r} is not "
                "valid, left out"
            )
            values.url = ""
        return publication

    def _valid_url(self, url: str) -> bool:
        try:
            self.url_validator(url)
        except ValidationError:
            return False
        return len(url) <= 500

    def finish(self) -> None:
        """Settle slugs, and what changes on the existing records entries matched."""
        self._read_matched([plan.target.pk for plan in self.plans if plan.target])
        self.creates: list[Plan] = []
        self.updates: list[tuple[Plan, Publication, list[str]]] = []
        self.author_changes: dict[int, list] = {}
        for plan in self.plans:
            if plan.target is None:
                self._plan_create(plan, plan.venue)
            else:
                self._plan_update(plan, self.rows[plan.target.pk], plan.venue)
        # Only the new venues a record ends up pointing at are created.
        used = {id(plan.publication.venue) for plan in self.creates}
        used |= {
            id(record.venue)
            for _, record, changes in self.updates
            if "venue" in changes
        }
        self.new_venues = [venue for venue in self.venues.new if id(venue) in used]
        self.report.venues_created = [venue.name for venue in self.new_venues]

    def _read_matched(self, ids: list[int]) -> None:
        """Read the rows, authors and links of the records that entries matched."""
        # Plain rows, not model instances: a re-import of thousands of entries
        # compares every record and changes few of them.
        columns = [f.attname for f in Publication._meta.concrete_fields]
        self.rows: dict[int, dict] = {}
        self.current_authors: dict[int, list[dict]] = defaultdict(list)
        self.current_links: dict[int, list[str]] = defaultdict(list)
        for chunk in chunks(ids, ID_CHUNK):
            for row in Publication.objects.filter(pk__in=chunk).values(*columns):
                self.rows[row["id"]] = row
            for row in (
                Authorship.objects.filter(publication_id__in=chunk)
                .order_by("publication_id", "position")
                .values(
                    "id",
                    "publication_id",
                    "name",
                    "family_name",
                    "person_id",
                    "equal_contribution",
                    "corresponding",
                )
            ):
                self.current_authors[row["publication_id"]].append(row)
            for pk, url in PublicationLink.objects.filter(
                publication_id__in=chunk
            ).values_list("publication_id", "url"):
                self.current_links[pk].append(url)
        # An entry that is just this site's export of a hand-kept record carries
        # nothing new: it must not be kept as the record's source BibTeX.
        exported = [
            pk
            for pk, row in self.rows.items()
            if not row["bibtex"] and row["source_file"] != self.source
        ]
        self.exports = {
            p.pk: to_bibtex(p).strip()
            for chunk in chunks(exported, ID_CHUNK)
            for p in Publication.objects.with_authors().filter(pk__in=chunk)
        }

    def _item(self, plan: Plan, authors: list[AuthorPlan]) -> ImportedItem:
        return ImportedItem(
            key=plan.entry.key,
            line=plan.entry.line,
            title=plan.values.title,
            year=plan.values.year,
            venue=plan.publication.venue_label,
            authors=[
                (a.name, a.person.display_name if a.person else "") for a in authors
            ],
        )

    def _plan_create(self, plan: Plan, venue: Venue | None) -> None:
        publication = plan.publication
        publication.venue = venue
        if venue is not None and plan.venue_text not in ("", venue.name):
            publication.venue_detail = plan.venue_text[:300]
        publication.slug = unique_slug(
            plan.values.title, self.slugs, 120, fallback=f"bibtex-{plan.entry.key}"
        )
        self.creates.append(plan)
        self.report.matched_members += sum(1 for a in plan.authors if a.person)
        self.report.created.append(self._item(plan, plan.authors))

    def _plan_update(self, plan: Plan, row: dict, venue: Venue | None) -> None:
        new = plan.publication
        new.venue = venue
        if venue is not None and plan.venue_text not in ("", venue.name):
            new.venue_detail = plan.venue_text[:300]
        pk = row["id"]
        # A record imported from a BibTeX file is the file's to correct, and so is
        # any other file's that names the same work by DOI, arXiv id or citation
        # key: a corrected file may come under a new name. A record kept by hand
        # (no file) only has its blanks filled.
        owned = bool(self.source and row["source_file"]) and (
            row["source_file"] == self.source or plan.found_by in IDENTIFYING
        )
        ours = self.exports.get(pk) == plan.entry.text.strip()
        changes = self._field_changes(row, new, owned=owned, ours=ours)
        authors = self._author_changes(plan, pk, owned)
        url = plan.values.url
        link = bool(url) and url not in self.current_links[pk]
        item = self._item(plan, plan.authors)
        item.changes = [*changes, *(["authors"] if authors else [])]
        item.changes += ["link"] if link else []
        if not item.changes:
            self.report.unchanged.append(item)
            return
        written = item.changes
        if owned and row["source_file"] != self.source:
            # The record now reads as this file gives it: its provenance follows.
            changes |= {"source_file": self.source, "source_id": plan.entry.key}
            item.changes = [*item.changes, "source_file"]
            written = [*item.changes, "source_id"]
        item.publication = Publication(**row)
        for name, value in changes.items():
            setattr(item.publication, name, value)
        self.updates.append((plan, item.publication, written))
        self.report.updated.append(item)

    @staticmethod
    def _field_changes(
        row: dict, new: Publication, *, owned: bool, ours: bool
    ) -> dict[str, object]:
        """The fields of a matched record that the entry changes, with their values."""
        changes = {}
        for name in [] if ours else _OWNED_FIELDS if owned else _FILLED_FIELDS:
            if name == "venue":
                old, value = row["venue_id"], new.venue
                same = value is not None and value.pk is not None and value.pk == old
                if same or (old is None and value is None):
                    continue
            else:
                old, value = row[name], getattr(new, name)
                if old == value:
                    continue
            if not owned and (old not in ("", None) or value in ("", None)):
                continue
            changes[name] = value
        if not owned and not row["bibtex"] and not ours:
            changes["bibtex"] = new.bibtex
        return changes

    def _author_changes(self, plan: Plan, pk: int, owned: bool) -> list | None:
        """The authorships to write for a matched record, or None to keep them."""
        current = self.current_authors[pk]
        wanted = plan.authors
        printed = [(a["name"], a["family_name"]) for a in current]
        if (not current and wanted) or (
            owned and printed != [(a.name, a.family_name) for a in wanted]
        ):
            by_name = {fold(a["name"]): a for a in current}
            for author in wanted:
                old = by_name.get(fold(author.name))
                if old is None:
                    continue
                # What staff set by hand (a resolved ambiguity, co-first authors)
                # survives the file's new author list.
                if old["person_id"] and author.person is None:
                    author.person = self.members.by_pk.get(old["person_id"])
                author.equal_contribution = old["equal_contribution"]
                author.corresponding = old["corresponding"]
            self.author_changes[pk] = wanted
            self.report.matched_members += sum(1 for a in wanted if a.person)
            return wanted
        fills = [
            Authorship(id=old["id"], person=author.person)
            for old, author in zip(current, wanted, strict=False)
            if old["person_id"] is None
            and author.person is not None
            and fold(old["name"]) == fold(author.name)
        ]
        if fills:
            self.author_changes[pk] = fills
            self.report.matched_members += len(fills)
            return fills
        return None
