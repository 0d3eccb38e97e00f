"""Export a member as a lab file that loads on its own."""

from typing import Any

from django.db import models
from django.db.models import Prefetch

from core.lib.dates import iso_partial
from core.models import Provenance, Topic
from events.models import Event
from labdata import writer
from labdata.sections import (
    EVENT,
    ORGANIZATION,
    PERSON,
    PUBLICATION,
    VENUE,
    Field,
    Kind,
    Section,
)
from labdata.writer import FlowList, Quoted
from people.models import Person
from publications.models import Publication


def export_person(person: Person) -> str:
    """Return one member's lab file: their records and every record those name."""
    return _Exporter(person).dump()


class _Exporter:
    def __init__(self, person: Person) -> None:
        self.person = _query(PERSON).get(pk=person.pk)
        # The records the file names, which must travel with it, by kind and pk.
        self.named: dict[str, dict[int, models.Model]] = {
            "topic": {},
            "organization": {},
            "venue": {},
        }

    def dump(self) -> str:
        name = " ".join(self.person.display_name.split())
        header = (
            f"# {name}: a lab file in the format of demo/README.md.\n"
            "# Load it with `python manage.py import_person FILE`.\n"
        )
        return writer.dump(self.build(), header)

    def build(self) -> dict[str, Any]:
        person = self.person
        events = self._events()
        publications = self._publications(events)
        sections = {
            "person": self._record(PERSON, person, slug=person.slug),
            "publications": [
                self._record(PUBLICATION, p, slug=p.slug) for p in publications
            ],
            "events": [self._record(EVENT, e, slug=e.slug) for e in events],
            "topics": self._topics(),
            "organizations": self._named(ORGANIZATION, "organization"),
            "venues": self._named(VENUE, "venue"),
        }
        return {key: value for key, value in sections.items() if value}

    def _events(self) -> list[Event]:
        events = _query(EVENT).filter(people=self.person)
        return sorted(events, key=lambda e: (-e.date.toordinal(), e.slug))

    def _publications(self, events: list[Event]) -> list[Publication]:
        person = self.person
        # Every publication a record of the file names must travel with it.
        ids = set(Publication.objects.by_person(person).values_list("pk", flat=True))
        ids |= {
            row.publication_id
            for row in [*person.experience.all(), *person.open_source.all()]
            if row.publication_id
        }
        ids |= {p.pk for event in events for p in event.publications.all()}
        publications = _query(PUBLICATION).filter(pk__in=ids)
        return sorted(
            publications,
            key=lambda p: (
                p.year is None,
                -(p.year or 0),
                -(p.month or 0),
                p.title,
                p.slug,
            ),
        )

    def _record(
        self, section: Section, obj: models.Model, **lead: Any
    ) -> dict[str, Any]:
        """Return the record of `obj`, after the `lead` keys (a top record's slug)."""
        values = dict(lead)
        for field in section.fields:
            values.update(self._written(field, obj))
        return writer.laid_out(writer.present(values), section.layout)

    def _written(self, field: Field, obj: models.Model) -> dict[str, Any]:
        """Return the keys and values `field` writes for `obj`."""
        match field.kind:
            case Kind.PERIOD:
                return {
                    "start": _partial(obj.start_date, obj.start_precision),
                    "end": _partial(obj.end_date, obj.end_precision),
                    "ongoing": obj.is_ongoing,
                }
            case Kind.DATES:
                return {
                    "date": _partial(obj.date, obj.date_precision),
                    "end_date": _partial(obj.end_date, obj.date_precision),
                }
        value = getattr(obj, field.name)
        match field.kind:
            case Kind.FLAG:
                value = value or None
            case Kind.LINES:
                value = writer.lines(value)
            case Kind.STAMP:
                value = Quoted(value.isoformat()) if value else None
            case Kind.DATA:
                value = writer.data(value)
            case Kind.SOURCE:
                # The file itself is the source of what it states.
                value = None if value == Provenance.Source.LAB_FILE else value
            case Kind.REF:
                value = self._slug(field.target, value)
            case Kind.REFS:
                value = FlowList(
                    sorted(self._slug(field.target, o) for o in value.all())
                )
            case Kind.ROWS:
                value = [self._record(field.section, row) for row in value.all()]
        return {field.key: value}

    def _slug(self, kind: str, obj: models.Model | None) -> str | None:
        if obj is None:
            return None
        if kind in self.named:
            self.named[kind][obj.pk] = obj
        return obj.slug

    def _named(self, section: Section, kind: str) -> list[dict[str, Any]]:
        records = sorted(self.named[kind].values(), key=lambda o: o.slug)
        return [self._record(section, obj, slug=obj.slug) for obj in records]

    def _topics(self) -> list[dict]:
        every = {t.pk: t for t in Topic.objects.all()}
        wanted = set()
        # A topic's parents come along so that the file loads on its own.
        for pk in self.named["topic"]:
            while pk is not None and pk not in wanted:
                wanted.add(pk)
                pk = every[pk].parent_id
        return [
            writer.compact(
                writer.present(
                    {
                        "slug": t.slug,
                        "name": t.name,
                        "parent": every[t.parent_id].slug if t.parent_id else None,
                        "aliases": FlowList(t.alias_list),
                        "description": t.description,
                    }
                )
            )
            for t in sorted((every[pk] for pk in wanted), key=lambda t: t.slug)
        ]


def _partial(value, precision: str) -> Quoted | None:
    return Quoted(iso_partial(value, precision)) if value else None


def _query(section: Section) -> models.QuerySet:
    """Return the section's records with all the file needs fetched in bulk."""
    related = [field.name for field in section.of(Kind.REF)]
    return section.model.objects.select_related(*related).prefetch_related(
        *_prefetches(section)
    )


def _prefetches(section: Section, prefix: str = "") -> list[str | Prefetch]:
    lookups: list[str | Prefetch] = []
    for field in section.of(Kind.REFS, Kind.ROWS):
        path = prefix + field.name
        if field.section is None:
            lookups.append(path)
            continue
        lookups.append(Prefetch(path, _stable(field.section)))
        lookups += _prefetches(field.section, f"{path}__")
    return lookups


def _stable(section: Section) -> models.QuerySet:
    """Return the rows in the order the profile shows them, ties broken by pk."""
    model = section.model
    related = [field.name for field in section.of(Kind.REF)]
    return model.objects.select_related(*related).order_by(*model._meta.ordering, "pk")
