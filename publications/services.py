"""Workflows that write publications together with their venues, authors and links."""

import functools
import re
from collections import defaultdict
from collections.abc import Callable, Iterable
from contextlib import nullcontext
from dataclasses import dataclass, field
from datetime import datetime

from django.core.exceptions import ValidationError
from django.core.validators import URLValidator
from django.db import connection, models, transaction
from django.db.models import Max
from django.utils import timezone
from django.utils.text import slugify

from core.bulk import without_cycle_collection
from people.models import Person
from publications.bibtex import (
    CONTAINER_TYPES,
    Author,
    Bibliographic,
    ParsedEntry,
    bibliographic,
    fold,
    parse_bibtex,
    to_bibtex,
    venue_name,
)
from publications.models import Authorship, Publication, PublicationLink, Venue
from search.indexing import deferred, index

Progress = Callable[[int, int], None]

# Slugs that a URL of the publications app already uses.
_RESERVED_SLUGS = {"export"}
_BATCH = 500
_NAME_LENGTH = Authorship._meta.get_field("name").max_length
# Fields an import never sets, settles itself (slug, venue) or fills from its own
# choices (kind, status): not validated again.
_UNSET_FIELDS = [
    "slug", "venue", "alternative_title", "presentation", "selected", "summary",
    "key_results", "topics", "updated_at", "kind", "status", "authors_complete",
    "bibtex",
]  # fmt: skip


@dataclass
class ImportedItem:
    key: str
    line: int
    title: str
    year: int | None = None
    venue: str = ""
    authors: list[tuple[str, str]] = field(default_factory=list)  # (name, member)
    changes: list[str] = field(default_factory=list)
    publication: Publication | None = None


@dataclass
class SkippedEntry:
    key: str
    line: int
    reason: str

    def __str__(self) -> str:
        where = f"line {self.line}" if self.line else "file"
        return f"{where}, {self.key or 'unnamed entry'}: {self.reason}"


@dataclass
class AmbiguousAuthor:
    key: str
    line: int
    author: str
    candidates: list[str]  # display names of the members the name fits


@dataclass
class ImportReport:
    source: str
    dry_run: bool = False
    created: list[ImportedItem] = field(default_factory=list)
    updated: list[ImportedItem] = field(default_factory=list)
    unchanged: list[ImportedItem] = field(default_factory=list)
    skipped: list[SkippedEntry] = field(default_factory=list)
    invalid: list[SkippedEntry] = field(default_factory=list)
    ambiguous: list[AmbiguousAuthor] = field(default_factory=list)
    person_missing: list[SkippedEntry] = field(default_factory=list)
    venues_created: list[str] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    matched_members: int = 0

    @property
    def skipped_total(self) -> int:
        return len(self.skipped) + len(self.invalid)

    def summary(self) -> str:
        text = (
            f"{len(self.created)} created, {len(self.updated)} updated, "
            f"{len(self.unchanged)} unchanged, {self.skipped_total} skipped; "
            f"{self.matched_members} authors matched to members, "
            f"{len(self.ambiguous)} ambiguous"
        )
        return f"Dry run, nothing written: {text}" if self.dry_run else text


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
        planner = _Planner(source=source, person=person, report=report)
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
                except _Invalid as exc:
                    problems.append(SkippedEntry(entry.key, entry.line, str(exc)))
            if progress and (done % 200 == 0 or done == total):
                progress(done, total)
        problems.sort(key=lambda problem: problem.line)
        if problems and not skip_invalid:
            raise BibtexImportError(problems)
        report.invalid = problems
        planner.finish()
        if not dry_run:
            planner.write()
    return report


class _Invalid(Exception):
    pass


# -- matching members ----------------------------------------------------------


@functools.lru_cache(maxsize=65536)
def _squash(text: str) -> str:
    return fold(text).replace(" ", "")


def _initials(given: str) -> str:
    """Initials of given names ("S.-Y." → "sy"), blank unless they are initials."""
    tokens = [t for t in re.split(r"[\s.\-‐]+", given) if t]
    if tokens and all(len(t) == 1 for t in tokens):
        return fold("".join(tokens)).replace(" ", "")
    if len(tokens) == 1 and tokens[0].isupper() and len(tokens[0]) <= 3:
        return tokens[0].lower()  # "SY", as Google Scholar prints initials
    return ""


@dataclass
class _Member:
    person: Person
    family: str
    givens: set[str]
    wholes: set[str]
    initial: str


class _Members:
    """Which members a printed name can refer to."""

    def __init__(self, people: Iterable[Person]) -> None:
        self.members = []
        for p in people:
            givens = {_squash(g) for g in (p.given_name, p.preferred_name) if g}
            display = p.display_name.split()
            wholes = {
                _squash(n)
                for n in (
                    p.display_name,
                    p.native_name,
                    f"{p.given_name} {p.family_name}",
                    f"{p.family_name} {p.given_name}",
                )
                if n.strip()
            }
            if len(display) > 1 and _squash(display[-1]) == _squash(p.family_name):
                givens.add(_squash(" ".join(display[:-1])))
            self.members.append(
                _Member(
                    p,
                    _squash(p.family_name),
                    givens - {""},
                    wholes,
                    fold(p.given_name)[:1],
                )
            )
        self.cache: dict[Author, tuple[list[Person], bool]] = {}
        self.by_pk = {m.person.pk: m.person for m in self.members}

    def candidates(self, author: Author) -> tuple[list[Person], bool]:
        """The members a name fits, and whether it names them in full."""
        if author not in self.cache:
            found = self.full(author)
            self.cache[author] = (
                (found, True) if found else (self.by_initials(author), False)
            )
        return self.cache[author]

    def full(self, author: Author) -> list[Person]:
        family, given = _squash(author.family), _squash(author.given)
        first_given = _squash(author.given.split()[0]) if author.given else ""
        whole = _squash(author.name)
        found = []
        for m in self.members:
            if (
                whole in m.wholes
                or (
                    family == m.family
                    and (given in m.givens or first_given in m.givens)
                )
                or (given == m.family and family in m.givens)
            ):
                found.append(m.person)
        return found

    def by_initials(self, author: Author) -> list[Person]:
        initials = _initials(author.given)
        if not initials:
            return []
        family = _squash(author.family)
        return [
            m.person
            for m in self.members
            if m.family == family and m.initial and initials[0] == m.initial
        ]

    def loosely(self, author: Author, person: Person) -> bool:
        """Whether the name can be this member's, judging by family name and initial."""
        member = next(m for m in self.members if m.person.pk == person.pk)
        family, given = _squash(author.family), _squash(author.given)
        if family == member.family:
            return not given or given[:1] == member.initial
        return given == member.family and family[:1] == member.initial


@dataclass
class _AuthorPlan:
    name: str
    family_name: str
    person: Person | None
    equal_contribution: bool = False
    corresponding: bool = False


# -- matching records ------------------------------------------------------------


def _doi_key(doi: str) -> str:
    return doi.strip().lower()


def _arxiv_key(arxiv_id: str) -> str:
    return re.sub(r"v\d+$", "", arxiv_id.strip().lower().removeprefix("arxiv:"))


def _pages_key(pages: str) -> str:
    return re.sub(r"[\s\-–—]+", "-", pages.strip().lower())


@dataclass
class _Target:
    """A record an entry can match: one in the database, or one this file creates."""

    pk: int | None
    title: str
    year: int
    venue_id: int | None
    venue_label: tuple[str, str]  # name and short name of its venue
    volume: str
    number: str
    pages: str
    doi: str
    arxiv_id: str
    source: str
    entry: ParsedEntry | None = None  # set when this file creates it


class _Index:
    def __init__(self) -> None:
        self.by_doi: dict[str, _Target] = {}
        self.by_arxiv: dict[str, _Target] = {}
        self.by_key: dict[tuple[str, str], _Target] = {}
        self.by_title: dict[tuple[str, int], list[_Target]] = defaultdict(list)

    def add(self, target: _Target, citation_key: str) -> None:
        if target.doi:
            self.by_doi.setdefault(_doi_key(target.doi), target)
        if target.arxiv_id:
            self.by_arxiv.setdefault(_arxiv_key(target.arxiv_id), target)
        if citation_key:
            self.by_key.setdefault((target.source, citation_key), target)
        self.by_title[(fold(target.title), target.year)].append(target)

    def find(
        self, values: Bibliographic, key: str, source: str
    ) -> tuple[_Target | None, str]:
        if values.doi and _doi_key(values.doi) in self.by_doi:
            return self.by_doi[_doi_key(values.doi)], "DOI"
        if values.arxiv_id and _arxiv_key(values.arxiv_id) in self.by_arxiv:
            return self.by_arxiv[_arxiv_key(values.arxiv_id)], "arXiv id"
        if (source, key) in self.by_key:
            return self.by_key[(source, key)], "citation key"
        for target in self.by_title.get((fold(values.title), values.year), []):
            if _compatible(values, target):
                return target, "title and year"
        return None, ""


def _compatible(values: Bibliographic, target: _Target) -> bool:
    """Whether a record with the same title and year can be the same work."""
    pairs = [
        (values.volume.lower(), target.volume.lower()),
        (values.number.lower(), target.number.lower()),
        (_pages_key(values.pages), _pages_key(target.pages)),
        (_doi_key(values.doi), _doi_key(target.doi)),
        (_arxiv_key(values.arxiv_id), _arxiv_key(target.arxiv_id)),
    ]
    if any(a and b and a != b for a, b in pairs):
        return False
    name, short = target.venue_label
    if not values.venue or not name:
        return True
    text = fold(values.venue)
    venue = fold(name)
    # Booktitles dress a venue's name up ("Proceedings of the 62nd …"), so a name
    # inside the other, or the short name as a word, counts as the same venue.
    return (
        venue in text
        or text in venue
        or fold(venue_name(values.venue)[0]) == venue
        or bool(short and re.search(rf"\b{re.escape(fold(short))}\b", text))
    )


# -- venues ------------------------------------------------------------------------


class _Venues:
    """Existing venues by every name they go by; new ones planned, created on write."""

    def __init__(self, report: ImportReport) -> None:
        self.report = report
        self.lookup: dict[str, Venue] = {}
        self.slugs: set[str] = set()
        self.new: list[Venue] = []
        self.resolved: dict[tuple[str, str], Venue | None] = {}
        for venue in Venue.objects.all():
            self._remember(venue)

    def _remember(self, venue: Venue) -> None:
        self.slugs.add(venue.slug)
        for name in (venue.name, venue.short_name):
            if name:
                self.lookup.setdefault("=" + name.casefold(), venue)
        self.lookup.setdefault("~" + fold(venue_name(venue.name)[0]), venue)
        if venue.short_name:
            self.lookup.setdefault("#" + venue.short_name.casefold(), venue)

    def known(self, text: str, *, journal: bool = False) -> Venue | None:
        """The existing (or already planned) venue a text names, if any."""
        if not text:
            return None
        name, acronym = venue_name(text, journal=journal)
        for key in (
            "=" + text.casefold(),
            "#" + acronym.casefold() if acronym else "",
            "=" + name.casefold(),
            "~" + fold(name),
        ):
            if key and key in self.lookup:
                return self.lookup[key]
        return None

    def resolve(self, text: str, kind: str) -> Venue | None:
        """The venue a text names, planned as a new one when none exists."""
        if (text, kind) not in self.resolved:
            self.resolved[text, kind] = self._resolve(text, kind)
        return self.resolved[text, kind]

    def _resolve(self, text: str, kind: str) -> Venue | None:
        known = self.known(text, journal=kind == "journal")
        if known is not None or not text:
            return known
        name, acronym = venue_name(text, journal=kind == "journal")
        venue = Venue(
            name=name[:300],
            short_name=acronym[:60],
            slug=_unique_slug(acronym or name, self.slugs, 120),
            kind=kind if kind in Venue.Kind.values else Venue.Kind.OTHER,
        )
        try:
            venue.full_clean(validate_unique=False, validate_constraints=False)
        except ValidationError as exc:
            raise _Invalid(f"venue {text!r}: {_messages(exc)}") from None
        self._remember(venue)
        self.new.append(venue)
        return venue


def _unique_slug(text: str, taken: set[str], limit: int) -> str:
    base = slugify(text)[: limit - 8].strip("-") or "publication"
    slug, n = base, 1
    while slug in taken:
        n += 1
        slug = f"{base}-{n}"
    taken.add(slug)
    return slug


def _messages(exc: ValidationError) -> str:
    if hasattr(exc, "message_dict"):
        return "; ".join(
            f"{name}: {' '.join(errors)}" for name, errors in exc.message_dict.items()
        )
    return " ".join(exc.messages)


# -- planning and writing ----------------------------------------------------------

# Bibliographic fields: a record from this file takes them all from the entry; a
# record kept by hand (or from another file) only has its blanks filled.
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
]
_FILLED_FIELDS = ["month", "venue", "doi", "arxiv_id", "pages", "volume", "number"]


@dataclass
class _Plan:
    entry: ParsedEntry
    values: Bibliographic
    target: _Target | None
    publication: Publication
    venue_text: str
    venue: Venue | None
    authors: list[_AuthorPlan] = field(default_factory=list)


class _Planner:
    def __init__(self, *, source: str, person: Person | None, report: ImportReport):
        self.source = source
        self.person = person
        self.report = report
        self.members = _Members(Person.objects.all())
        self.venues = _Venues(report)
        self.index = _Index()
        self.slugs = set(Publication.objects.values_list("slug", flat=True))
        self.slugs |= _RESERVED_SLUGS
        venue_labels = {
            v.pk: (v.name, v.short_name) for v in self.venues.lookup.values()
        }
        for row in Publication.objects.values(
            "pk", "title", "year", "venue_id", "volume", "number", "pages", "doi",
            "arxiv_id", "source", "citation_key",
        ):  # fmt: skip
            key = row.pop("citation_key")
            row["venue_label"] = venue_labels.get(row["venue_id"], ("", ""))
            self.index.add(_Target(**row), key)
        self.plans: list[_Plan] = []
        self.url_validator = URLValidator()

    def plan(self, entry: ParsedEntry) -> None:
        values = bibliographic(entry)
        if not values.title:
            self.report.skipped.append(SkippedEntry(entry.key, entry.line, "no title"))
            return
        if values.year is None:
            raise _Invalid("no year (nor a date with one)")
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
        plan = _Plan(entry, values, target, publication, values.venue, venue)
        if target is None:
            self.index.add(
                _Target(
                    pk=None,
                    title=values.title,
                    year=values.year,
                    venue_id=None,
                    venue_label=(values.venue, ""),
                    volume=values.volume,
                    number=values.number,
                    pages=values.pages,
                    doi=values.doi,
                    arxiv_id=values.arxiv_id,
                    source=self.source,
                    entry=entry,
                ),
                entry.key,
            )
        else:
            # An existing record is now spoken for: a later entry matching it again
            # is a duplicate within the file.
            target.entry = entry
        plan.authors = self._authors(entry)
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
            source=self.source,
            slug="unset",
        )
        try:
            # Uniqueness (the slug) and foreign keys are settled by the planner, and
            # the table's checks repeat field validators; checking them here would
            # cost a query per entry.
            publication.full_clean(
                exclude=_UNSET_FIELDS, validate_unique=False, validate_constraints=False
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
            raise _Invalid(_messages(exc)) from None
        if values.url:
            try:
                self.url_validator(values.url)
                if len(values.url) > 500:
                    raise ValidationError("too long")
            except ValidationError:
                entry.warnings.append(
                    f"line {entry.line}, {entry.key}: URL {values.url!r} is not "
                    "valid, left out"
                )
                values.url = ""
        return publication

    def _authors(self, entry: ParsedEntry) -> list[_AuthorPlan]:
        plans = [_AuthorPlan(a.name, a.family_name, None) for a in entry.authors]
        candidates: list[list[Person]] = []
        full: list[bool] = []
        for author in entry.authors:
            found, is_full = self.members.candidates(author)
            full.append(is_full)
            candidates.append(found)
        taken: set[int] = set()
        # Full-name matches first, so that "S. Zheng" cannot take a member whom
        # "Shaoyi Zheng" on the same list names in full.
        for strong in (True, False):
            for i, found in enumerate(candidates):
                if len(found) == 1 and full[i] == strong and found[0].pk not in taken:
                    plans[i].person = found[0]
                    taken.add(found[0].pk)
        ambiguous = {
            i
            for i, found in enumerate(candidates)
            if plans[i].person is None
            and found
            and not (len(found) == 1 and found[0].pk in taken)
        }
        if self.person is not None and self.person.pk not in taken:
            loose = [
                i
                for i, author in enumerate(entry.authors)
                if plans[i].person is None and self.members.loosely(author, self.person)
            ]
            if len(loose) == 1:
                plans[loose[0]].person = self.person
                ambiguous.discard(loose[0])
            else:
                self.report.person_missing.append(
                    SkippedEntry(
                        entry.key,
                        entry.line,
                        f"{self.person.display_name} is not among the authors"
                        if not loose
                        else f"{len(loose)} authors could be "
                        f"{self.person.display_name}",
                    )
                )
        for i in sorted(ambiguous):
            self.report.ambiguous.append(
                AmbiguousAuthor(
                    entry.key,
                    entry.line,
                    entry.authors[i].name,
                    [p.display_name for p in candidates[i]],
                )
            )
        return plans

    def finish(self) -> None:
        """Settle slugs, and what changes on the existing records entries matched."""
        ids = [plan.target.pk for plan in self.plans if plan.target]
        # Plain rows, not model instances: a re-import of thousands of entries
        # compares every record and changes few of them.
        columns = [f.attname for f in Publication._meta.concrete_fields]
        self.rows = {}
        self.current_authors: dict[int, list[dict]] = defaultdict(list)
        self.current_links: dict[int, list[str]] = defaultdict(list)
        for chunk in _chunks(ids):
            for row in Publication.objects.filter(pk__in=chunk).values(*columns):
                self.rows[row["id"]] = row
            for row in (
                Authorship.objects.filter(publication_id__in=chunk)
                .order_by("publication_id", "position")
                .values("id", "publication_id", "name", "family_name", "person_id",
                        "equal_contribution", "corresponding")
            ):  # fmt: skip
                self.current_authors[row["publication_id"]].append(row)
            for pk, url in PublicationLink.objects.filter(
                publication_id__in=chunk
            ).values_list("publication_id", "url"):
                self.current_links[pk].append(url)
        # An entry that is just this site's export of a hand-kept record carries
        # nothing new: it must not be kept as the record's source BibTeX.
        exported = [
            pk for pk, row in self.rows.items()
            if not row["bibtex"] and row["source"] != self.source
        ]  # fmt: skip
        self.exports = {
            p.pk: to_bibtex(p).strip()
            for chunk in _chunks(exported)
            for p in Publication.objects.with_authors().filter(pk__in=chunk)
        }
        self.creates: list[_Plan] = []
        self.updates: list[tuple[_Plan, Publication, list[str]]] = []
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

    def _item(self, plan: _Plan, authors: list[_AuthorPlan]) -> ImportedItem:
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

    def _plan_create(self, plan: _Plan, venue: Venue | None) -> None:
        publication = plan.publication
        publication.venue = venue
        if venue is not None and plan.venue_text not in ("", venue.name):
            publication.venue_detail = plan.venue_text[:300]
        publication.slug = _unique_slug(plan.values.title, self.slugs, 120)
        self.creates.append(plan)
        self.report.matched_members += sum(1 for a in plan.authors if a.person)
        self.report.created.append(self._item(plan, plan.authors))

    def _plan_update(self, plan: _Plan, row: dict, venue: Venue | None) -> None:
        new = plan.publication
        new.venue = venue
        if venue is not None and plan.venue_text not in ("", venue.name):
            new.venue_detail = plan.venue_text[:300]
        pk = row["id"]
        owned = bool(self.source) and row["source"] == self.source
        ours = self.exports.get(pk) == plan.entry.text.strip()
        changes = {}
        for name in [] if ours else _OWNED_FIELDS if owned else _FILLED_FIELDS:
            if name == "venue":
                old, value = row["venue_id"], venue
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
        authors = self._author_changes(plan, pk, owned)
        url = plan.values.url
        link = bool(url) and url not in self.current_links[pk]
        item = self._item(plan, plan.authors)
        item.changes = [*changes, *(["authors"] if authors else [])]
        item.changes += ["link"] if link else []
        if not item.changes:
            self.report.unchanged.append(item)
            return
        item.publication = Publication(**row)
        for name, value in changes.items():
            setattr(item.publication, name, value)
        self.updates.append((plan, item.publication, item.changes))
        self.report.updated.append(item)

    def _author_changes(self, plan: _Plan, pk: int, owned: bool) -> list | None:
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

    def write(self) -> None:
        now = timezone.now()
        with deferred():
            for venue in self.new_venues:
                venue.save()
            created = [plan.publication for plan in self.creates]
            _insert_publications(created, now)
            for item, publication in zip(self.report.created, created, strict=True):
                item.publication = publication
            authorships, links = [], []
            for plan in self.creates:
                authorships += _authorship_rows(plan.publication.pk, plan.authors)
                if plan.values.url:
                    links.append(_link_row(plan.publication.pk, plan.values.url, 0))
            updated, fields = [], {"updated_at"}
            replaced, person_fills = [], []
            for plan, record, changes in self.updates:
                record.updated_at = now
                fields |= set(changes) - {"authors", "link"}
                updated.append(record)
                wanted = self.author_changes.get(record.pk)
                if wanted and isinstance(wanted[0], _AuthorPlan):
                    replaced.append(record.pk)
                    authorships += _authorship_rows(record.pk, wanted)
                elif wanted:
                    person_fills += wanted
                if "link" in changes:
                    position = len(self.current_links[record.pk])
                    links.append(_link_row(record.pk, plan.values.url, position))
            Publication.objects.bulk_update(updated, sorted(fields), batch_size=_BATCH)
            people = {
                row["person_id"]
                for pk in replaced
                for row in self.current_authors[pk]
                if row["person_id"]
            }
            for chunk in _chunks(replaced):
                Authorship.objects.filter(publication_id__in=chunk).delete()
            _insert(Authorship, _AUTHORSHIP_COLUMNS, authorships)
            Authorship.objects.bulk_update(person_fills, ["person"], batch_size=_BATCH)
            _insert(PublicationLink, _LINK_COLUMNS, links)
            ids = [p.pk for p in created] + [p.pk for p in updated]
            people |= {row[4] for row in authorships if row[4]}
            people |= {a.person_id for a in person_fills}
            # Bulk writes send no signals: index what they touched, once.
            index("publication", ids)
            index("person", people)


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


def _authorship_rows(publication_id: int, authors: list[_AuthorPlan]) -> list[tuple]:
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
    stamp = connection.ops.adapt_datetimefield_value(now)
    for publication in publications:
        publication.updated_at = now
        # Venues saved since the plan lend their ids, as save() would do.
        publication.venue_id = publication.venue.pk if publication.venue else None
    rows = [
        tuple(
            stamp if f.attname == "updated_at" else getattr(p, f.attname)
            for f in fields
        )
        for p in publications
    ]
    if not publications:
        return
    # Ids only grow, so the new rows are those above today's largest; their slugs
    # (unique, chosen by the planner) tell which publication got which.
    newest = Publication.objects.aggregate(newest=Max("pk"))["newest"] or 0
    _insert(Publication, [f.name for f in fields], rows)
    by_slug = {p.slug: p for p in publications}
    for slug, pk in Publication.objects.filter(pk__gt=newest).values_list("slug", "pk"):
        if slug in by_slug:
            publication = by_slug[slug]
            publication.pk = pk
            publication._state.adding = False
            publication._state.db = connection.alias


def _chunks(ids: list, size: int = 5000) -> Iterable[list]:
    # Keeps every `IN (…)` list within what any database accepts as parameters.
    for start in range(0, len(ids), size):
        yield ids[start : start + size]


def _insert(model: type[models.Model], columns: list[str], rows: list[tuple]) -> None:
    """Insert already validated rows with one executemany; no ids come back."""
    # bulk_create prepares every value of every row in Python, which was half of
    # an import's time; these rows already hold what the database takes (text,
    # numbers, booleans, ids). executemany beat multi-row INSERTs on SQLite.
    if not rows:
        return
    quote = connection.ops.quote_name
    names = ", ".join(quote(model._meta.get_field(c).column) for c in columns)
    marks = ", ".join(["%s"] * len(columns))
    table = quote(model._meta.db_table)
    with connection.cursor() as cursor:
        cursor.executemany(f"INSERT INTO {table} ({names}) VALUES ({marks})", rows)
