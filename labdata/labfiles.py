"""Lab files: the YAML format of demo/README.md, loaded in one transaction."""

import contextlib
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

import yaml
from django.core.exceptions import NON_FIELD_ERRORS, ValidationError
from django.db import models, transaction
from django.db.models import Prefetch

from core.dates import iso_partial, parse_partial
from core.models import Organization, Topic
from events.models import Event, EventLink
from people.models import (
    Award,
    ContributionLink,
    Education,
    Experience,
    ExperienceLink,
    Interest,
    OpenSourceContribution,
    Person,
    PersonLink,
    ResearchArea,
    Service,
    Skill,
    Teaching,
)
from publications.models import Authorship, Publication, PublicationLink, Venue
from search.indexing import deferred

SECTIONS = ("topics", "organizations", "venues", "people", "publications", "events")


class LabFileError(Exception):
    """A lab file that cannot be loaded; the message says which file and record."""


class Stats(dict):
    def bump(self, key: str) -> None:
        self[key] = self.get(key, 0) + 1


def read_lab_files(paths: Iterable[Path]) -> dict[str, dict[str, dict]]:
    """Merge the sections of many YAML files into one record per slug per section."""
    return _read(paths)[0]


def _read(paths: Iterable[Path]) -> tuple[dict[str, dict[str, dict]], dict]:
    """The merged records, and the file each (section, slug) was first read from."""
    merged: dict[str, dict[str, dict]] = {name: {} for name in SECTIONS}
    sources: dict[tuple[str, str], Path] = {}
    for path in sorted(paths):
        try:
            data = yaml.safe_load(path.read_text(encoding="utf-8")) or {}
        except (yaml.YAMLError, UnicodeDecodeError) as exc:
            raise LabFileError(f"{path}: not valid YAML: {exc}") from None
        if not isinstance(data, dict):
            raise LabFileError(f"{path}: the top level must be a mapping of sections")
        if "person" in data:
            data.setdefault("people", []).append(data.pop("person"))
        unknown = set(data) - set(SECTIONS)
        if unknown:
            raise LabFileError(f"{path}: unknown sections {sorted(unknown)}")
        for section, records in data.items():
            if not isinstance(records, list):
                raise LabFileError(f"{path}: section {section!r} must be a list")
            for record in records:
                if not isinstance(record, dict) or not isinstance(
                    record.get("slug"), str
                ):
                    raise LabFileError(f"{path}: every {section} record needs a slug")
                slug = record["slug"]
                known = merged[section].get(slug)
                if known is not None and known != record:
                    raise LabFileError(
                        f"{path}: {section} {slug!r} is defined differently elsewhere"
                    )
                merged[section][slug] = record
                sources.setdefault((section, slug), path)
    return merged, sources


def load_lab_directory(root: Path) -> Stats:
    return load_lab_files(root.rglob("*.yaml"))


def load_lab_files(
    paths: Iterable[Path],
    *,
    clear_missing: bool = False,
    refs_from_database: bool = False,
) -> Stats:
    """Create or update every record the files describe; all or nothing."""
    data, sources = _read(paths)
    loader = _Loader(
        sources=sources,
        clear_missing=clear_missing,
        refs_from_database=refs_from_database,
    )
    with transaction.atomic(), deferred():
        loader.load(data)
    return loader.stats


def import_lab_files(paths: Iterable[Path]) -> Stats:
    """Make the database hold exactly what the files say of the records they name."""
    # A profile file is the whole truth about its records, so a field it leaves out
    # is cleared; it may point at records the database holds (a co-author's person).
    return load_lab_files(paths, clear_missing=True, refs_from_database=True)


_LABELS = {
    "topics": "topic",
    "organizations": "organization",
    "venues": "venue",
    "people": "person",
    "publications": "publication",
    "events": "event",
}
_MODELS: dict[str, type[models.Model]] = {
    "topic": Topic,
    "organization": Organization,
    "venue": Venue,
    "person": Person,
    "publication": Publication,
}


class _Loader:
    def __init__(
        self,
        *,
        sources: dict | None = None,
        clear_missing: bool = False,
        refs_from_database: bool = False,
    ) -> None:
        self.stats = Stats()
        self.sources = sources or {}
        self.clear_missing = clear_missing
        self.refs_from_database = refs_from_database
        self.topics: dict[str, Topic] = {}
        self.organizations: dict[str, Organization] = {}
        self.venues: dict[str, Venue] = {}
        self.people: dict[str, Person] = {}
        self.publications: dict[str, Publication] = {}

    def load(self, data: dict[str, dict[str, dict]]) -> None:
        for slug, record in data["topics"].items():
            with self._at("topics", slug):
                self.topics[slug] = self._upsert(
                    Topic,
                    slug,
                    {
                        "name": record.get("name", slug),
                        "aliases": _lines(record, "aliases"),
                        "description": record.get("description", ""),
                    },
                )
        # Parents in a second pass so that files need not be ordered.
        for slug, record in data["topics"].items():
            with self._at("topics", slug):
                parent = self._ref(self.topics, record.get("parent"), "topic")
                topic = self.topics[slug]
                if topic.parent_id != (parent.pk if parent else None):
                    topic.parent = parent
                    _clean(topic)
                    topic.save()
        for slug, record in data["organizations"].items():
            with self._at("organizations", slug):
                self.organizations[slug] = self._upsert(
                    Organization,
                    slug,
                    self._fields(
                        Organization,
                        record,
                        "name",
                        "short_name",
                        "kind",
                        "location",
                        "url",
                    ),
                )
        for slug, record in data["venues"].items():
            with self._at("venues", slug):
                self.venues[slug] = self._upsert(
                    Venue,
                    slug,
                    self._fields(Venue, record, "name", "short_name", "kind", "url"),
                )
        # People before publications (authors link to them) and publications before
        # the person's child rows (experience links to publications).
        for slug, record in data["people"].items():
            with self._at("people", slug):
                self.people[slug] = self._load_person(slug, record)
        for slug, record in data["publications"].items():
            with self._at("publications", slug):
                self.publications[slug] = self._load_publication(slug, record)
        for slug, record in data["people"].items():
            with self._at("people", slug):
                self._load_person_rows(self.people[slug], record)
        for slug, record in data["events"].items():
            with self._at("events", slug):
                self._load_event(slug, record)

    # -- generic helpers -------------------------------------------------------

    @contextlib.contextmanager
    def _at(self, section: str, slug: str) -> Iterator[None]:
        """Prefix any error raised while loading a record with its file and name."""
        path = self.sources.get((section, slug))
        where = f"{path}: " if path else ""
        where += f"{_LABELS[section]} {slug!r}"
        try:
            yield
        except LabFileError as exc:
            raise LabFileError(f"{where}: {exc}") from None
        except (AttributeError, TypeError, ValueError) as exc:
            # A value of the wrong shape, e.g. a mapping where a list belongs.
            raise LabFileError(f"{where}: malformed value ({exc})") from None

    def _fields(self, model: type[models.Model], record: dict, *names: str) -> dict:
        values = _pick(record, *names)
        if self.clear_missing:
            for name in names:
                if name not in values:
                    values[name] = model._meta.get_field(name).get_default()
        return values

    def _upsert(self, model: type[models.Model], slug: str, values: dict):
        label = model._meta.verbose_name
        obj = model.objects.filter(slug=slug).first()
        created = obj is None
        if created:
            obj = model(slug=slug)
        changed = _assign(obj, values)
        if created or changed:
            _clean(obj, exclude=["parent"])
            obj.save()
            self.stats.bump(f"{label} {'created' if created else 'updated'}")
        return obj

    def _ref(self, table: dict, slug: str | None, kind: str, where: str = ""):
        if not slug:
            return None
        if slug not in table and self.refs_from_database:
            found = _MODELS[kind].objects.filter(slug=slug).first()
            if found is not None:
                table[slug] = found
        try:
            return table[slug]
        except KeyError:
            elsewhere = (
                " (neither in the files nor in the database)"
                if self.refs_from_database
                else ""
            )
            raise LabFileError(f"{where}unknown {kind} {slug!r}{elsewhere}") from None

    def _refs(self, table: dict, record: dict, key: str, kind: str) -> list:
        slugs = record.get(key) or []
        if not isinstance(slugs, list):
            raise LabFileError(f"{key}: must be a list of {kind} slugs")
        return [self._ref(table, slug, kind, f"{key}: ") for slug in slugs]

    def _sync(self, manager, rows: list[dict], within: str = "", **parent) -> None:
        """Make the related rows equal the given ones, touching only what differs."""
        model = manager.model
        existing = (
            list(manager.order_by("position", "id"))
            if _has(model, "position")
            else list(manager.order_by("id"))
        )
        for index, values in enumerate(rows):
            label = f"{within}{model._meta.verbose_name} #{index + 1}"
            if _has(model, "position"):
                values = {"position": index, **values}
            links = values.pop("_links", None)
            if index < len(existing):
                obj = existing[index]
                changed = _assign(obj, values)
            else:
                obj = model(**parent, **values)
                changed = True
            if changed:
                _clean(obj, label)
                obj.save()
                self.stats.bump(f"{model._meta.verbose_name} written")
            if links is not None:
                self._sync(
                    obj.links, links, f"{label}: ", **{obj.links.field.name: obj}
                )
        for obj in existing[len(rows) :]:
            obj.delete()
            self.stats.bump(f"{model._meta.verbose_name} deleted")

    def _rows(self, record: dict, key: str) -> list[dict]:
        rows = record.get(key) or []
        if not isinstance(rows, list) or not all(isinstance(r, dict) for r in rows):
            raise LabFileError(f"{key}: must be a list of mappings")
        return rows

    # -- people ----------------------------------------------------------------

    def _load_person(self, slug: str, record: dict) -> Person:
        fields = self._fields(
            Person,
            record,
            "given_name",
            "family_name",
            "display_name",
            "preferred_name",
            "native_name",
            "pronunciation",
            "role",
            "position_title",
            "headline",
            "team",
            "location",
            "office",
            "email",
            "secondary_email",
            "bio",
            "research_summary",
            "quote",
            "quote_author",
            "photo_alt",
            "status",
        )
        fields["organization"] = self._ref(
            self.organizations, record.get("organization"), "organization"
        )
        person = self._upsert(Person, slug, fields)
        _set_m2m(person.topics, self._refs(self.topics, record, "topics", "topic"))
        return person

    def _load_person_rows(self, person: Person, record: dict) -> None:
        org = lambda s: self._ref(self.organizations, s, "organization")  # noqa: E731
        pub = lambda s: self._ref(self.publications, s, "publication")  # noqa: E731
        rows = lambda key: self._rows(record, key)  # noqa: E731
        fields = self._fields
        self._sync(
            person.links,
            [fields(PersonLink, r, "kind", "label", "url") for r in rows("links")],
            person=person,
        )
        self._sync(
            person.research_areas,
            [
                {
                    **fields(ResearchArea, r, "title", "subtitle"),
                    "items": _lines(r, "items"),
                }
                for r in rows("research_areas")
            ],
            person=person,
        )
        self._sync(
            person.education,
            [
                {
                    **fields(
                        Education,
                        r,
                        "unit",
                        "degree",
                        "field",
                        "location",
                        "advisor",
                        "gpa",
                    ),
                    **_range(r, f"education #{n}"),
                    "organization": org(r.get("organization")),
                    "honours": _lines(r, "honours"),
                    "notes": _lines(r, "notes"),
                }
                for n, r in enumerate(rows("education"), start=1)
            ],
            person=person,
        )
        self._sync(
            person.experience,
            [
                {
                    **fields(
                        Experience,
                        r,
                        "kind",
                        "role",
                        "team",
                        "location",
                        "supervisor",
                        "supervisor_relation",
                    ),
                    **_range(r, f"experience #{n}"),
                    "organization": org(r.get("organization")),
                    "publication": pub(r.get("publication")),
                    "notes": _lines(r, "notes"),
                    "_links": [
                        fields(ExperienceLink, link, "label", "url")
                        for link in self._rows(r, "links")
                    ],
                }
                for n, r in enumerate(rows("experience"), start=1)
            ],
            person=person,
        )
        self._sync(
            person.awards,
            [
                fields(Award, r, "year", "title", "granting_body", "detail")
                for r in rows("awards")
            ],
            person=person,
        )
        self._sync(
            person.service,
            [
                fields(Service, r, "kind", "role", "venue", "year", "detail")
                for r in rows("service")
            ],
            person=person,
        )
        self._sync(
            person.teaching,
            [
                {
                    **fields(
                        Teaching, r, "course_code", "course_title", "role", "term"
                    ),
                    "organization": org(r.get("organization")),
                }
                for r in rows("teaching")
            ],
            person=person,
        )
        self._sync(
            person.open_source,
            [
                {
                    **fields(
                        OpenSourceContribution,
                        r,
                        "project",
                        "organization",
                        "role",
                        "start_year",
                        "end_year",
                        "description",
                    ),
                    "publication": pub(r.get("publication")),
                    "_links": [
                        fields(ContributionLink, link, "label", "url")
                        for link in self._rows(r, "links")
                    ],
                }
                for r in rows("open_source")
            ],
            person=person,
        )
        self._sync(
            person.skills,
            [fields(Skill, r, "category", "items") for r in rows("skills")],
            person=person,
        )
        self._sync(
            person.interests,
            [fields(Interest, r, "title", "description") for r in rows("interests")],
            person=person,
        )

    # -- publications and events -------------------------------------------------

    def _load_publication(self, slug: str, record: dict) -> Publication:
        fields = self._fields(
            Publication,
            record,
            "title",
            "alternative_title",
            "kind",
            "year",
            "month",
            "venue_detail",
            "status",
            "presentation",
            "selected",
            "authors_complete",
            "summary",
            "key_results",
            "doi",
            "arxiv_id",
            "pages",
            "volume",
            "number",
            "bibtex",
        )
        fields["venue"] = self._ref(self.venues, record.get("venue"), "venue")
        publication = self._upsert(Publication, slug, fields)
        _set_m2m(publication.topics, self._refs(self.topics, record, "topics", "topic"))
        self._sync(
            publication.links,
            [
                self._fields(PublicationLink, r, "kind", "label", "url")
                for r in self._rows(record, "links")
            ],
            publication=publication,
        )
        self._sync_authors(publication, self._rows(record, "authors"))
        return publication

    def _sync_authors(self, publication: Publication, authors: list[dict]) -> None:
        existing = {a.position: a for a in publication.authorships.all()}
        for position, record in enumerate(authors, start=1):
            where = f"author {position}: "
            values = {
                "name": record.get("name", ""),
                "person": self._ref(self.people, record.get("person"), "person", where),
                "equal_contribution": bool(record.get("equal_contribution", False)),
                "corresponding": bool(record.get("corresponding", False)),
            }
            authorship = existing.pop(position, None)
            if authorship is None:
                authorship = Authorship(publication=publication, position=position)
            if _assign(authorship, values) or authorship.pk is None:
                _clean(authorship, f"author {position}")
                authorship.save()
                self.stats.bump("authorship written")
        for authorship in existing.values():
            authorship.delete()

    def _load_event(self, slug: str, record: dict) -> None:
        if not record.get("date"):
            raise LabFileError("date: this field is required")
        date, precision = _date(record, "date")
        end = _date(record, "end_date")[0] if record.get("end_date") else None
        fields = {
            **self._fields(
                Event, record, "kind", "title", "location", "host", "description"
            ),
            "date": date,
            "date_precision": precision,
            "end_date": end,
            "publication": self._ref(
                self.publications, record.get("publication"), "publication"
            ),
        }
        event = self._upsert(Event, slug, fields)
        _set_m2m(event.people, self._refs(self.people, record, "people", "person"))
        _set_m2m(event.topics, self._refs(self.topics, record, "topics", "topic"))
        self._sync(
            event.links,
            [
                self._fields(EventLink, r, "kind", "label", "url")
                for r in self._rows(record, "links")
            ],
            event=event,
        )


def _pick(record: dict, *names: str) -> dict[str, Any]:
    """The named fields the record gives; a null text field becomes blank."""
    values = {}
    for name in names:
        if name in record:
            value = record[name]
            values[name] = "" if value is None and name not in _NULLABLE else value
    return values


_NULLABLE = {"year", "month", "start_year", "end_year"}


def _lines(record: dict, key: str) -> str:
    """A list of lines as the one text the model keeps."""
    lines = record.get(key) or []
    if not isinstance(lines, list):
        raise LabFileError(f"{key}: must be a list of lines")
    return "\n".join(str(line) for line in lines)


def _date(record: dict, key: str) -> tuple:
    try:
        return parse_partial(record[key])
    except ValueError as exc:
        raise LabFileError(f"{key}: {exc}") from None


def _range(record: dict, owner: str) -> dict[str, Any]:
    values: dict[str, Any] = {"is_ongoing": bool(record.get("ongoing", False))}
    for key in ("start", "end"):
        raw = record.get(key)
        if raw in (None, ""):
            values[f"{key}_date"] = None
            continue
        try:
            date, precision = parse_partial(raw)
        except ValueError as exc:
            raise LabFileError(f"{owner}: {key}: {exc}") from None
        values[f"{key}_date"] = date
        values[f"{key}_precision"] = precision
    return values


def _has(model: type[models.Model], field: str) -> bool:
    return any(f.name == field for f in model._meta.get_fields())


def _assign(obj: models.Model, values: dict) -> bool:
    changed = False
    for name, value in values.items():
        if getattr(obj, name) != value:
            setattr(obj, name, value)
            changed = True
    return changed


def _clean(
    obj: models.Model, label: str = "", exclude: list[str] | None = None
) -> None:
    try:
        obj.full_clean(exclude=exclude, validate_unique=True)
    except ValidationError as exc:
        prefix = f"{label}: " if label else ""
        raise LabFileError(f"{prefix}{_flatten(exc)}") from None


def _flatten(exc: ValidationError) -> str:
    if hasattr(exc, "message_dict"):
        return "; ".join(
            " ".join(v) if k == NON_FIELD_ERRORS else f"{k}: {' '.join(v)}"
            for k, v in exc.message_dict.items()
        )
    return " ".join(exc.messages)


def _set_m2m(manager, objects: list) -> None:
    if {o.pk for o in objects} != set(manager.values_list("pk", flat=True)):
        manager.set(objects)


# -- export ----------------------------------------------------------------------


def export_person(person: Person) -> str:
    """One member's lab file: their records and every record those refer to."""
    return _Exporter(person).dump()


class _Flow(dict):
    """A mapping written on one line, as the hand-written files do."""


class _FlowList(list):
    """A list written on one line."""


class _Quoted(str):
    """A string written in double quotes: the dates of the format."""


class _Dumper(yaml.SafeDumper):
    def increase_indent(self, flow: bool = False, indentless: bool = False):
        # Indent list items under their key, as demo/ does.
        return super().increase_indent(flow, False)

    def ignore_aliases(self, data: Any) -> bool:
        return True


# Line breaks other than \n that PyYAML writes unescaped, and then reads back as
# a different break, in every style but double quotes.
_UNICODE_BREAKS = frozenset("\r\x85\u2028\u2029")


def _represent_str(dumper: yaml.SafeDumper, value: str) -> yaml.ScalarNode:
    # Multi-line text (Markdown, BibTeX) as a literal block; PyYAML falls back to
    # quotes by itself where a block cannot hold the text exactly.
    style = "|" if "\n" in value else None
    if _UNICODE_BREAKS.intersection(value):
        style = '"'
    return dumper.represent_scalar("tag:yaml.org,2002:str", value, style=style)


_Dumper.add_representer(str, _represent_str)
_Dumper.add_representer(
    _Quoted,
    lambda d, v: d.represent_scalar("tag:yaml.org,2002:str", str(v), style='"'),
)
_Dumper.add_representer(
    _Flow, lambda d, v: d.represent_mapping("tag:yaml.org,2002:map", v, True)
)
_Dumper.add_representer(
    _FlowList, lambda d, v: d.represent_sequence("tag:yaml.org,2002:seq", v, True)
)

_FLOW_WIDTH = 100


def _present(**values: Any) -> dict[str, Any]:
    """The fields that hold something: the format leaves blank ones out."""
    return {k: v for k, v in values.items() if v not in ("", None, [])}


def _row(row, *names: str, **extra: Any) -> dict[str, Any]:
    """A related row as its file record: the named attributes, then any extras."""
    return _compact(_present(**{n: getattr(row, n) for n in names}, **extra))


def _links(manager, *names: str) -> list:
    """A record's links, each on one line."""
    return [
        _Flow(_present(**{n: getattr(link, n) for n in names}))
        for link in manager.all()
    ]


def _compact(values: dict[str, Any]) -> dict[str, Any]:
    """The record on one line when it is short and holds no multi-line text."""
    simple = all(
        isinstance(v, int | _FlowList) or (isinstance(v, str) and "\n" not in v)
        for v in values.values()
    )
    width = sum(len(str(k)) + len(str(v)) + 4 for k, v in values.items())
    return _Flow(values) if simple and width <= _FLOW_WIDTH else values


def _lines_out(text: str) -> list[str]:
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    width = sum(len(line) + 2 for line in lines)
    return _FlowList(lines) if width <= _FLOW_WIDTH // 2 else lines


def _partial(value, precision: str) -> str | None:
    return _Quoted(iso_partial(value, precision)) if value else None


def _slug(obj: models.Model | None) -> str | None:
    return obj.slug if obj is not None else None


class _Exporter:
    def __init__(self, person: Person) -> None:
        self.person = (
            Person.objects.select_related("organization")
            .prefetch_related(
                "topics",
                "links",
                Prefetch("research_areas", _stable(ResearchArea)),
                Prefetch("education", _stable(Education, "organization")),
                Prefetch(
                    "experience", _stable(Experience, "organization", "publication")
                ),
                "experience__links",
                Prefetch("awards", _stable(Award)),
                Prefetch("service", _stable(Service)),
                Prefetch("teaching", _stable(Teaching, "organization")),
                Prefetch("open_source", _stable(OpenSourceContribution, "publication")),
                "open_source__links",
                Prefetch("skills", _stable(Skill)),
                Prefetch("interests", _stable(Interest)),
            )
            .get(pk=person.pk)
        )
        self.topics: set[int] = set()
        self.organizations: dict[int, Organization] = {}
        self.venues: dict[int, Venue] = {}

    def dump(self) -> str:
        data = self.build()
        name = " ".join(self.person.display_name.split())
        header = (
            f"# {name}: a lab file in the format of demo/README.md.\n"
            "# Load it with `python manage.py import_person FILE`.\n"
        )
        return header + yaml.dump(
            data,
            Dumper=_Dumper,
            allow_unicode=True,
            sort_keys=False,
            default_flow_style=False,
            width=1_000_000,
        )

    def build(self) -> dict[str, Any]:
        person = self.person
        events = sorted(
            Event.objects.filter(people=person)
            .select_related("publication")
            .prefetch_related("people", "topics", "links"),
            key=lambda e: (-e.date.toordinal(), e.slug),
        )
        # Every publication a record of the file names must travel with it.
        publication_ids = set(
            Publication.objects.by_person(person).values_list("pk", flat=True)
        )
        publication_ids |= {
            row.publication_id
            for row in [*person.experience.all(), *person.open_source.all(), *events]
            if row.publication_id
        }
        publications = sorted(
            Publication.objects.filter(pk__in=publication_ids)
            .select_related("venue")
            .prefetch_related(
                Prefetch(
                    "authorships",
                    queryset=Authorship.objects.select_related("person").order_by(
                        "position"
                    ),
                ),
                "links",
                "topics",
            ),
            key=lambda p: (-p.year, -(p.month or 0), p.title, p.slug),
        )
        sections = {
            "person": self._person(person),
            "publications": [self._publication(p) for p in publications],
            "events": [self._event(e) for e in events],
            "topics": self._topics(),
            "organizations": [
                _row(o, "slug", "name", "short_name", "kind", "location", "url")
                for o in sorted(self.organizations.values(), key=lambda o: o.slug)
            ],
            "venues": [
                _row(v, "slug", "name", "short_name", "kind", "url")
                for v in sorted(self.venues.values(), key=lambda v: v.slug)
            ],
        }
        return {key: value for key, value in sections.items() if value}

    def _org(self, organization: Organization | None) -> str | None:
        if organization is not None:
            self.organizations[organization.pk] = organization
        return _slug(organization)

    def _topic_slugs(self, topics) -> _FlowList:
        topics = list(topics)
        self.topics |= {t.pk for t in topics}
        return _FlowList(sorted(t.slug for t in topics))

    def _topics(self) -> list[dict]:
        every = {t.pk: t for t in Topic.objects.all()}
        wanted = set()
        # A topic's parents come along so that the file loads on its own.
        for pk in self.topics:
            while pk is not None and pk not in wanted:
                wanted.add(pk)
                pk = every[pk].parent_id
        return [
            _compact(
                _present(
                    slug=t.slug,
                    name=t.name,
                    parent=every[t.parent_id].slug if t.parent_id else None,
                    aliases=_FlowList(t.alias_list),
                    description=t.description,
                )
            )
            for t in sorted((every[pk] for pk in wanted), key=lambda t: t.slug)
        ]

    def _person(self, p: Person) -> dict[str, Any]:
        return _present(
            slug=p.slug,
            given_name=p.given_name,
            family_name=p.family_name,
            display_name=p.display_name,
            preferred_name=p.preferred_name,
            native_name=p.native_name,
            pronunciation=p.pronunciation,
            role=p.role,
            position_title=p.position_title,
            headline=p.headline,
            organization=self._org(p.organization),
            team=p.team,
            location=p.location,
            office=p.office,
            email=p.email,
            secondary_email=p.secondary_email,
            bio=p.bio,
            research_summary=p.research_summary,
            quote=p.quote,
            quote_author=p.quote_author,
            photo_alt=p.photo_alt,
            status=p.status,
            topics=self._topic_slugs(p.topics.all()),
            links=_links(p.links, "kind", "label", "url"),
            research_areas=[
                _compact(
                    _present(
                        title=area.title,
                        subtitle=area.subtitle,
                        items=_lines_out(area.items),
                    )
                )
                for area in p.research_areas.all()
            ],
            education=[
                _present(
                    organization=self._org(row.organization),
                    unit=row.unit,
                    degree=row.degree,
                    field=row.field,
                    location=row.location,
                    **self._range(row),
                    advisor=row.advisor,
                    gpa=row.gpa,
                    honours=_lines_out(row.honours),
                    notes=_lines_out(row.notes),
                )
                for row in (p.education.all())
            ],
            experience=[
                _present(
                    kind=row.kind,
                    organization=self._org(row.organization),
                    role=row.role,
                    team=row.team,
                    location=row.location,
                    **self._range(row),
                    supervisor=row.supervisor,
                    supervisor_relation=row.supervisor_relation,
                    notes=_lines_out(row.notes),
                    publication=_slug(row.publication),
                    links=_links(row.links, "label", "url"),
                )
                for row in (p.experience.all())
            ],
            awards=[
                _row(row, "year", "title", "granting_body", "detail")
                for row in p.awards.all()
            ],
            service=[
                _row(row, "kind", "role", "venue", "year", "detail")
                for row in p.service.all()
            ],
            teaching=[
                _compact(
                    _present(
                        course_code=row.course_code,
                        course_title=row.course_title,
                        role=row.role,
                        organization=self._org(row.organization),
                        term=row.term,
                    )
                )
                for row in (p.teaching.all())
            ],
            open_source=[
                _row(
                    row,
                    *("project", "organization", "role", "start_year", "end_year"),
                    "description",
                    publication=_slug(row.publication),
                    links=_links(row.links, "label", "url"),
                )
                for row in p.open_source.all()
            ],
            skills=[_row(row, "category", "items") for row in p.skills.all()],
            interests=[_row(row, "title", "description") for row in p.interests.all()],
        )

    @staticmethod
    def _range(row) -> dict[str, Any]:
        return {
            "start": _partial(row.start_date, row.start_precision),
            "end": _partial(row.end_date, row.end_precision),
            "ongoing": row.is_ongoing,
        }

    def _publication(self, p: Publication) -> dict[str, Any]:
        if p.venue is not None:
            self.venues[p.venue.pk] = p.venue
        return _present(
            slug=p.slug,
            title=p.title,
            alternative_title=p.alternative_title,
            kind=p.kind,
            year=p.year,
            month=p.month,
            venue=_slug(p.venue),
            venue_detail=p.venue_detail,
            status=p.status,
            presentation=p.presentation,
            selected=p.selected,
            authors_complete=p.authors_complete,
            summary=p.summary,
            key_results=p.key_results,
            doi=p.doi,
            arxiv_id=p.arxiv_id,
            pages=p.pages,
            volume=p.volume,
            number=p.number,
            bibtex=p.bibtex,
            topics=self._topic_slugs(p.topics.all()),
            links=_links(p.links, "kind", "label", "url"),
            authors=[
                _Flow(
                    _present(
                        name=a.name,
                        person=_slug(a.person),
                        equal_contribution=a.equal_contribution or None,
                        corresponding=a.corresponding or None,
                    )
                )
                for a in p.authorships.all()
            ],
        )

    def _event(self, e: Event) -> dict[str, Any]:
        return _present(
            slug=e.slug,
            kind=e.kind,
            title=e.title,
            date=_partial(e.date, e.date_precision),
            end_date=_partial(e.end_date, e.date_precision),
            location=e.location,
            host=e.host,
            description=e.description,
            people=_FlowList(sorted(person.slug for person in e.people.all())),
            publication=_slug(e.publication),
            topics=self._topic_slugs(e.topics.all()),
            links=_links(e.links, "kind", "label", "url"),
        )


def _stable(model: type[models.Model], *related: str) -> models.QuerySet:
    """Rows in the order the profile shows them, ties broken for a stable file."""
    return model.objects.select_related(*related).order_by(*model._meta.ordering, "pk")
