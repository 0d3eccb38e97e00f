"""Lab files: the YAML format of demo/README.md, loaded in one transaction."""

from collections.abc import Iterable
from pathlib import Path
from typing import Any

import yaml
from django.core.exceptions import ValidationError
from django.db import models, transaction

from directory.dates import parse_partial
from directory.models import Organization, Topic
from directory.search import deferred
from events.models import Event
from people.models import Person
from publications.models import Authorship, Publication, Venue

SECTIONS = ("topics", "organizations", "venues", "people", "publications", "events")


class LabFileError(Exception):
    """A lab file that cannot be loaded; the message says which file and record."""


class Stats(dict):
    def bump(self, key: str) -> None:
        self[key] = self.get(key, 0) + 1


def read_lab_files(paths: Iterable[Path]) -> dict[str, dict[str, dict]]:
    """Merge the sections of many YAML files into one record per slug per section."""
    merged: dict[str, dict[str, dict]] = {name: {} for name in SECTIONS}
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
                if not isinstance(record, dict) or not record.get("slug"):
                    raise LabFileError(f"{path}: every {section} record needs a slug")
                slug = record["slug"]
                known = merged[section].get(slug)
                if known is not None and known != record:
                    raise LabFileError(
                        f"{path}: {section} {slug!r} is defined differently elsewhere"
                    )
                merged[section][slug] = record
    return merged


def load_lab_directory(root: Path) -> Stats:
    return load_lab_files(root.rglob("*.yaml"))


def load_lab_files(paths: Iterable[Path]) -> Stats:
    """Create or update every record the files describe; all or nothing."""
    data = read_lab_files(paths)
    loader = _Loader()
    with transaction.atomic(), deferred():
        loader.load(data)
    return loader.stats


class _Loader:
    def __init__(self) -> None:
        self.stats = Stats()
        self.topics: dict[str, Topic] = {}
        self.organizations: dict[str, Organization] = {}
        self.venues: dict[str, Venue] = {}
        self.people: dict[str, Person] = {}
        self.publications: dict[str, Publication] = {}

    def load(self, data: dict[str, dict[str, dict]]) -> None:
        for slug, record in data["topics"].items():
            self.topics[slug] = self._upsert(
                Topic,
                slug,
                record,
                {
                    "name": record.get("name", slug),
                    "aliases": "\n".join(record.get("aliases") or []),
                    "description": record.get("description", ""),
                },
            )
        # Parents in a second pass so that files need not be ordered.
        for slug, record in data["topics"].items():
            parent = self._ref(self.topics, record.get("parent"), "topic", slug)
            topic = self.topics[slug]
            if topic.parent_id != (parent.pk if parent else None):
                topic.parent = parent
                topic.full_clean()
                topic.save()
        for slug, record in data["organizations"].items():
            self.organizations[slug] = self._upsert(
                Organization,
                slug,
                record,
                _pick(record, "name", "short_name", "kind", "location", "url"),
            )
        for slug, record in data["venues"].items():
            self.venues[slug] = self._upsert(
                Venue, slug, record, _pick(record, "name", "short_name", "kind", "url")
            )
        # People before publications (authors link to them) and publications before
        # the person's child rows (experience links to publications).
        for slug, record in data["people"].items():
            self.people[slug] = self._load_person(slug, record)
        for slug, record in data["publications"].items():
            self.publications[slug] = self._load_publication(slug, record)
        for slug, record in data["people"].items():
            self._load_person_rows(self.people[slug], record)
        for slug, record in data["events"].items():
            self._load_event(slug, record)

    # -- generic helpers -------------------------------------------------------

    def _upsert(self, model: type[models.Model], slug: str, record: dict, values: dict):
        label = model._meta.verbose_name
        obj = model.objects.filter(slug=slug).first()
        created = obj is None
        if created:
            obj = model(slug=slug)
        changed = _assign(obj, values)
        if created or changed:
            _clean(obj, f"{label} {slug!r}", exclude=["parent"])
            obj.save()
            self.stats.bump(f"{label} {'created' if created else 'updated'}")
        return obj

    def _ref(self, table: dict, slug: str | None, kind: str, owner: str):
        if not slug:
            return None
        try:
            return table[slug]
        except KeyError:
            raise LabFileError(f"{owner}: unknown {kind} {slug!r}") from None

    def _refs(self, table: dict, slugs: list | None, kind: str, owner: str) -> list:
        return [self._ref(table, slug, kind, owner) for slug in slugs or []]

    def _sync(self, manager, rows: list[dict], owner: str, **parent) -> None:
        """Make the related rows equal the given ones, touching only what differs."""
        model = manager.model
        existing = (
            list(manager.order_by("position", "id"))
            if _has(model, "position")
            else list(manager.order_by("id"))
        )
        for index, values in enumerate(rows):
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
                _clean(obj, f"{owner}: {model._meta.verbose_name} #{index + 1}")
                obj.save()
                self.stats.bump(f"{model._meta.verbose_name} written")
            if links is not None:
                self._sync(obj.links, links, owner, **{obj.links.field.name: obj})
        for obj in existing[len(rows) :]:
            obj.delete()
            self.stats.bump(f"{model._meta.verbose_name} deleted")

    # -- people ----------------------------------------------------------------

    def _load_person(self, slug: str, record: dict) -> Person:
        fields = _pick(
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
            self.organizations, record.get("organization"), "organization", slug
        )
        person = self._upsert(Person, slug, record, fields)
        _set_m2m(
            person.topics, self._refs(self.topics, record.get("topics"), "topic", slug)
        )
        return person

    def _load_person_rows(self, person: Person, record: dict) -> None:
        slug = person.slug
        org = lambda s: self._ref(self.organizations, s, "organization", slug)  # noqa: E731
        pub = lambda s: self._ref(self.publications, s, "publication", slug)  # noqa: E731
        self._sync(
            person.links,
            [_pick(r, "kind", "label", "url") for r in record.get("links") or []],
            slug,
            person=person,
        )
        self._sync(
            person.research_areas,
            [
                {
                    **_pick(r, "title", "subtitle"),
                    "items": "\n".join(r.get("items") or []),
                }
                for r in record.get("research_areas") or []
            ],
            slug,
            person=person,
        )
        self._sync(
            person.education,
            [
                {
                    **_pick(r, "unit", "degree", "field", "location", "advisor", "gpa"),
                    **_range(r, slug),
                    "organization": org(r.get("organization")),
                    "honours": "\n".join(r.get("honours") or []),
                    "notes": "\n".join(r.get("notes") or []),
                }
                for r in record.get("education") or []
            ],
            slug,
            person=person,
        )
        self._sync(
            person.experience,
            [
                {
                    **_pick(
                        r,
                        "kind",
                        "role",
                        "team",
                        "location",
                        "supervisor",
                        "supervisor_relation",
                    ),
                    **_range(r, slug),
                    "organization": org(r.get("organization")),
                    "publication": pub(r.get("publication")),
                    "notes": "\n".join(r.get("notes") or []),
                    "_links": [
                        _pick(link, "label", "url") for link in r.get("links") or []
                    ],
                }
                for r in record.get("experience") or []
            ],
            slug,
            person=person,
        )
        self._sync(
            person.awards,
            [
                _pick(r, "year", "title", "granting_body", "detail")
                for r in record.get("awards") or []
            ],
            slug,
            person=person,
        )
        self._sync(
            person.service,
            [
                _pick(r, "kind", "role", "venue", "year", "detail")
                for r in record.get("service") or []
            ],
            slug,
            person=person,
        )
        self._sync(
            person.teaching,
            [
                {
                    **_pick(r, "course_code", "course_title", "role", "term"),
                    "organization": org(r.get("organization")),
                }
                for r in record.get("teaching") or []
            ],
            slug,
            person=person,
        )
        self._sync(
            person.open_source,
            [
                {
                    **_pick(
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
                        _pick(link, "label", "url") for link in r.get("links") or []
                    ],
                }
                for r in record.get("open_source") or []
            ],
            slug,
            person=person,
        )
        self._sync(
            person.skills,
            [_pick(r, "category", "items") for r in record.get("skills") or []],
            slug,
            person=person,
        )
        self._sync(
            person.interests,
            [_pick(r, "title", "description") for r in record.get("interests") or []],
            slug,
            person=person,
        )

    # -- publications and events -------------------------------------------------

    def _load_publication(self, slug: str, record: dict) -> Publication:
        fields = _pick(
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
        fields["venue"] = self._ref(self.venues, record.get("venue"), "venue", slug)
        publication = self._upsert(Publication, slug, record, fields)
        _set_m2m(
            publication.topics,
            self._refs(self.topics, record.get("topics"), "topic", slug),
        )
        self._sync(
            publication.links,
            [_pick(r, "kind", "label", "url") for r in record.get("links") or []],
            slug,
            publication=publication,
        )
        self._sync_authors(publication, record.get("authors") or [])
        return publication

    def _sync_authors(self, publication: Publication, authors: list[dict]) -> None:
        existing = {a.position: a for a in publication.authorships.all()}
        for position, record in enumerate(authors, start=1):
            values = {
                "name": record.get("name", ""),
                "person": self._ref(
                    self.people, record.get("person"), "person", publication.slug
                ),
                "equal_contribution": bool(record.get("equal_contribution", False)),
                "corresponding": bool(record.get("corresponding", False)),
            }
            authorship = existing.pop(position, None)
            if authorship is None:
                authorship = Authorship(publication=publication, position=position)
            if _assign(authorship, values) or authorship.pk is None:
                _clean(authorship, f"{publication.slug}: author {position}")
                authorship.save()
                self.stats.bump("authorship written")
        for authorship in existing.values():
            authorship.delete()

    def _load_event(self, slug: str, record: dict) -> None:
        try:
            date, precision = parse_partial(record["date"])
            end = (
                parse_partial(record["end_date"])[0] if record.get("end_date") else None
            )
        except (KeyError, ValueError) as exc:
            raise LabFileError(f"event {slug!r}: {exc}") from None
        fields = {
            **_pick(record, "kind", "title", "location", "host", "description"),
            "date": date,
            "date_precision": precision,
            "end_date": end,
            "publication": self._ref(
                self.publications, record.get("publication"), "publication", slug
            ),
        }
        event = self._upsert(Event, slug, record, fields)
        _set_m2m(
            event.people, self._refs(self.people, record.get("people"), "person", slug)
        )
        _set_m2m(
            event.topics, self._refs(self.topics, record.get("topics"), "topic", slug)
        )
        self._sync(
            event.links,
            [_pick(r, "kind", "label", "url") for r in record.get("links") or []],
            slug,
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
            raise LabFileError(f"{owner}: {exc}") from None
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


def _clean(obj: models.Model, label: str, exclude: list[str] | None = None) -> None:
    try:
        obj.full_clean(exclude=exclude, validate_unique=True)
    except ValidationError as exc:
        raise LabFileError(f"{label}: {_flatten(exc)}") from None


def _flatten(exc: ValidationError) -> str:
    if hasattr(exc, "message_dict"):
        return "; ".join(f"{k}: {' '.join(v)}" for k, v in exc.message_dict.items())
    return " ".join(exc.messages)


def _set_m2m(manager, objects: list) -> None:
    if {o.pk for o in objects} != set(manager.values_list("pk", flat=True)):
        manager.set(objects)
