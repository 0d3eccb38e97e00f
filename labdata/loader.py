"""Load lab records into the database: one transaction, search indexing deferred."""

import contextlib
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

from django.conf import settings
from django.core.exceptions import ValidationError
from django.db import models, transaction

from core.models import Provenance, Topic
from core.validation import validation_messages
from labdata import reader
from labdata.lab import load_lab
from labdata.reader import LabFileError, Records, Sources
from labdata.sections import (
    AUTHOR,
    EVENT,
    ORGANIZATION,
    PERSON,
    PUBLICATION,
    REFERABLE,
    VENUE,
    Field,
    Kind,
    Section,
)
from publications.models import Authorship, Publication
from search.indexing import deferred


class Stats(dict):
    """How many records of each kind a load created, updated, wrote or deleted."""

    def bump(self, key: str) -> None:
        self[key] = self.get(key, 0) + 1

    def report(self, unchanged: str) -> str:
        """Return one line a count, or `unchanged` when nothing was written."""
        if not self:
            return unchanged
        return "\n".join(f"{count:5d} {key}" for key, count in sorted(self.items()))


def load_lab_directory(root: Path) -> Stats:
    """Load every lab file under `root`; all or nothing."""
    return load_lab_files(root.rglob("*.yaml"))


def load_lab_files(
    paths: Iterable[Path],
    *,
    clear_missing: bool = False,
    refs_from_database: bool = False,
) -> Stats:
    """Create or update every record the files describe; all or nothing."""
    data, sources = reader.read_with_sources(paths)
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


class _Loader:
    def __init__(
        self,
        *,
        sources: Sources | None = None,
        clear_missing: bool = False,
        refs_from_database: bool = False,
    ) -> None:
        self.stats = Stats()
        self.sources = sources or {}
        self.clear_missing = clear_missing
        self.refs_from_database = refs_from_database
        # Every record read or looked up so far, by kind and slug.
        self.known: dict[str, dict[str, models.Model]] = {
            kind: {} for kind in _LABELS.values()
        }

    def load(self, data: Records) -> None:
        """Write the records section by section, each after those it refers to."""
        load_lab(data["lab"].get("lab"), self.sources.get(("lab", "lab")), self.stats)
        self._load_topics(data["topics"])
        self._load_all("organizations", ORGANIZATION, data)
        self._load_all("venues", VENUE, data)
        # People before publications (authors link to them) and publications before
        # the person's rows (experience links to publications).
        self._load_all("people", PERSON, data)
        self._load_all("publications", PUBLICATION, data, with_rows=True)
        for slug, record in data["people"].items():
            with self._at("people", slug):
                self._load_rows(self.known["person"][slug], PERSON, record)
        self._load_all("events", EVENT, data, with_rows=True)

    def _load_all(
        self, name: str, section: Section, data: Records, *, with_rows: bool = False
    ) -> None:
        kind = _LABELS[name]
        for slug, record in data[name].items():
            with self._at(name, slug):
                obj = self._load_record(section, slug, record, self._file(name, slug))
                self.known[kind][slug] = obj
                if with_rows:
                    self._load_rows(obj, section, record)

    def _load_topics(self, topics: dict[str, dict]) -> None:
        # Not a table of sections.py: a topic's name defaults to its slug, and a
        # parent is set in a second pass so that files need not be ordered.
        for slug, record in topics.items():
            with self._at("topics", slug):
                self.known["topic"][slug] = self._upsert(
                    Topic,
                    slug,
                    {
                        "name": record.get("name", slug),
                        "aliases": reader.lines(record, "aliases"),
                        "description": record.get("description", ""),
                    },
                )
        for slug, record in topics.items():
            with self._at("topics", slug):
                parent = self._ref("topic", record.get("parent"))
                topic = self.known["topic"][slug]
                if topic.parent_id != (parent.pk if parent else None):
                    topic.parent = parent
                    _clean(topic)
                    topic.save()

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

    # -- one record ------------------------------------------------------------

    def _file(self, name: str, slug: str) -> str:
        """The file a record was read from, as its provenance names it."""
        path = self.sources.get((name, slug))
        if path is None:
            return ""
        # Never the server's own folders: a path inside the project, else the name.
        try:
            return path.resolve().relative_to(settings.BASE_DIR).as_posix()
        except ValueError:
            return path.name

    def _load_record(
        self, section: Section, slug: str, record: dict, lab_file: str = ""
    ) -> models.Model:
        """Create or update the record named by `slug`, with its many-to-many refs."""
        values = self._values(section, record)
        if _has(section.model, "lab_file"):
            values["lab_file"] = lab_file
        obj = self._upsert(section.model, slug, values)
        for field in section.of(Kind.REFS):
            names = reader.slugs(record, field.key, field.target)
            where = f"{field.key}: "
            _set_m2m(
                getattr(obj, field.name),
                [self._ref(field.target, name, where) for name in names],
            )
        return obj

    def _values(
        self, section: Section, record: dict, label: str = "", where: str = ""
    ) -> dict[str, Any]:
        """Return the model's field values for one record, its related rows aside."""
        values = self._plain(section, record)
        if section.has(Kind.PERIOD):
            values.update(reader.period(record, label))
        if section.has(Kind.DATES):
            values.update(reader.event_dates(record))
        for field in section.of(Kind.REF):
            values[field.name] = self._ref(field.target, record.get(field.key), where)
        for field in section.of(Kind.LINES):
            values[field.name] = reader.lines(record, field.key)
        for field in section.of(Kind.FLAG):
            values[field.name] = bool(record.get(field.key, False))
        for field in section.of(Kind.SOURCE):
            # A row the file states comes from the file, unless it names another.
            source = record.get(field.key) or Provenance.Source.LAB_FILE
            values[field.name] = source
        return values

    def _plain(self, section: Section, record: dict) -> dict[str, Any]:
        """Return the record's values and numbers; clear_missing blanks the rest."""
        fields = list(section.of(Kind.VALUE, Kind.NUMBER, Kind.STAMP, Kind.DATA))
        model = section.model._meta
        if section.as_written:
            return {
                f.name: record.get(f.key, model.get_field(f.name).get_default())
                for f in fields
            }
        values = {f.name: _as_read(f, record[f.key]) for f in fields if f.key in record}
        if self.clear_missing:
            for f in fields:
                values.setdefault(f.name, model.get_field(f.name).get_default())
        return values

    def _upsert(
        self, model: type[models.Model], slug: str, values: dict
    ) -> models.Model:
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

    def _ref(self, kind: str, slug: str | None, where: str = "") -> models.Model | None:
        if not slug:
            return None
        table = self.known[kind]
        if slug not in table and self.refs_from_database:
            found = REFERABLE[kind].objects.filter(slug=slug).first()
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

    # -- related rows ----------------------------------------------------------

    def _load_rows(self, obj: models.Model, section: Section, record: dict) -> None:
        """Make each list of related rows of the record what the file says."""
        for field in section.of(Kind.ROWS):
            records = reader.mappings(record, field.key)
            if field.section is AUTHOR:
                self._sync_authors(obj, records)
            else:
                self._sync(getattr(obj, field.name), self._rows(field, records))

    def _rows(self, field: Field, records: list[dict]) -> list[dict]:
        """Return each row's values, with its own related rows under "_rows"."""
        section = field.section
        rows = []
        for number, record in enumerate(records, start=1):
            label = f"{section.model._meta.verbose_name} #{number}"
            values = self._values(section, record, label)
            nested = {
                inner.name: self._rows(inner, reader.mappings(record, inner.key))
                for inner in section.of(Kind.ROWS)
            }
            rows.append({**values, "_rows": nested})
        return rows

    def _sync(self, manager, rows: list[dict], within: str = "") -> None:
        """Make the related rows equal the given ones, touching only what differs."""
        model = manager.model
        ordered = _has(model, "position")
        order = ("position", "id") if ordered else ("id",)
        existing = list(manager.order_by(*order))
        for index, values in enumerate(rows):
            label = f"{within}{model._meta.verbose_name} #{index + 1}"
            if ordered:
                values = {"position": index, **values}
            nested = values.pop("_rows", {})
            if index < len(existing):
                obj = existing[index]
                changed = _assign(obj, values)
            else:
                obj = model(**{manager.field.name: manager.instance}, **values)
                changed = True
            if changed:
                _clean(obj, label)
                obj.save()
                self.stats.bump(f"{model._meta.verbose_name} written")
            for relation, inner in nested.items():
                self._sync(getattr(obj, relation), inner, f"{label}: ")
        for obj in existing[len(rows) :]:
            obj.delete()
            self.stats.bump(f"{model._meta.verbose_name} deleted")

    def _sync_authors(self, publication: Publication, records: list[dict]) -> None:
        # Authors are matched by their printed position, which counts from 1.
        existing = {a.position: a for a in publication.authorships.all()}
        for position, record in enumerate(records, start=1):
            values = self._values(AUTHOR, record, where=f"author {position}: ")
            authorship = existing.pop(position, None)
            if authorship is None:
                authorship = Authorship(publication=publication, position=position)
            if _assign(authorship, values) or authorship.pk is None:
                _clean(authorship, f"author {position}")
                authorship.save()
                self.stats.bump("authorship written")
        for authorship in existing.values():
            authorship.delete()


def _as_read(field: Field, value: Any) -> Any:
    """Return a null as blank text or an empty list; a number may stay unknown."""
    match field.kind:
        case Kind.VALUE:
            return "" if value is None else value
        case Kind.DATA:
            return [] if value is None else value
        case Kind.STAMP:
            return reader.timestamp(field.key, value)
    return value


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
        raise LabFileError(f"{prefix}{validation_messages(exc)}") from None


def _set_m2m(manager, objects: list) -> None:
    if {o.pk for o in objects} != set(manager.values_list("pk", flat=True)):
        manager.set(objects)
