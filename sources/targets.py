"""Each kind of record an import touches: its values as an import compares them,
and how proposed values are written."""

from django.core.exceptions import ValidationError
from django.db import models
from django.utils import timezone

from core.lib.dates import iso_partial, parse_partial
from core.models import Organization, Topic
from core.slugs import slug_of, unique_slug
from core.validation import validation_messages
from people.models import Education, Experience, Person, PersonLink
from publications.services import Venues, publication_from_source
from sources.models import Target


class WriteError(Exception):
    """A proposed record does not pass the model's checks."""


PERSON_FIELDS = ("given_name", "family_name", "display_name", "orcid", "openalex_id")
EDUCATION_FIELDS = ("organization", "unit", "degree", "start", "end", "location")
EXPERIENCE_FIELDS = ("organization", "team", "role", "start", "end", "location")


def current_values(target: str, obj: models.Model) -> dict:
    """The values of an existing record, shaped as an import proposes them."""
    if target == Target.PUBLICATION:
        return {
            "title": obj.title,
            "kind": obj.kind,
            "year": obj.year,
            "month": obj.month,
            "venue": obj.venue.name if obj.venue else obj.venue_detail,
            "doi": obj.doi,
            "openalex_id": obj.openalex_id,
            "arxiv_id": obj.arxiv_id,
            "abstract": obj.abstract,
            "authors": [
                {"name": a.name, "person": a.person_id}
                for a in obj.authorships.order_by("position")
            ],
            "topics": sorted(obj.topics.values_list("pk", flat=True)),
        }
    if target == Target.PERSON:
        return {f: getattr(obj, f) for f in PERSON_FIELDS}
    if target in (Target.EDUCATION, Target.EXPERIENCE):
        unit = "unit" if target == Target.EDUCATION else "team"
        role = "degree" if target == Target.EDUCATION else "role"
        return {
            "organization": obj.organization.name if obj.organization else "",
            unit: getattr(obj, unit),
            role: getattr(obj, role),
            "start": iso_partial(obj.start_date, obj.start_precision),
            "end": "present"
            if obj.is_ongoing
            else iso_partial(obj.end_date, obj.end_precision),
            "location": obj.location,
        }
    raise ValueError(f"{target} records are only created")


def write(
    target: str,
    values: dict,
    *,
    person: Person | None,
    obj: models.Model | None = None,
    fields: list[str] | None = None,
    source: str,
    source_id: str,
    venues: Venues | None = None,
) -> models.Model:
    """Create a record from `values`, or change `fields` of `obj` to them (`venues`:
    the venues known so far, kept by a caller that writes many records)."""
    try:
        if target == Target.PUBLICATION:
            return publication_from_source(
                values=values,
                instance=obj,
                fields=fields,
                source=source,
                source_id=source_id,
                venues=venues,
            )
        if target == Target.PERSON:
            for field in fields or []:
                setattr(obj, field, values[field])
            obj.full_clean()
            obj.save()
            return obj
        if target in (Target.EDUCATION, Target.EXPERIENCE):
            return _write_affiliation(
                target, values, person, obj, fields, source, source_id
            )
        if target == Target.LINK:
            link = PersonLink(
                person=person,
                kind=values["kind"],
                label=values["label"][:120],
                url=values["url"],
                position=person.links.count(),
            )
            link.full_clean()
            link.save()
            return link
        if target == Target.INTEREST:
            topic = Topic.objects.get(pk=values["topic"])
            person.topics.add(topic)
            return topic
    except ValidationError as exc:
        raise WriteError(
            f"{values.get('title') or target}: {validation_messages(exc)}"
        ) from None
    raise ValueError(f"unknown target {target}")


def _write_affiliation(
    target: str,
    values: dict,
    person: Person,
    obj: Education | Experience | None,
    fields: list[str] | None,
    source: str,
    source_id: str,
) -> Education | Experience:
    model = Education if target == Target.EDUCATION else Experience
    if obj is None:
        obj = model(
            person=person,
            source=source,
            source_id=source_id,
            position=model.objects.filter(person=person).count(),
        )
        fields = [f for f in values if f in (*EDUCATION_FIELDS, *EXPERIENCE_FIELDS)]
    for field in fields or []:
        value = values[field]
        if field == "organization":
            obj.organization = organization_named(value)
        elif field in ("start", "end"):
            _set_partial(obj, field, value)
        else:
            setattr(obj, field, value)
    obj.retrieved_at = timezone.now()
    obj.full_clean()
    obj.save()
    return obj


def _set_partial(obj: Education | Experience, field: str, text: str) -> None:
    if field == "end":
        obj.is_ongoing = text == "present"
        if obj.is_ongoing:
            obj.end_date = None
            return
    if not text or text == "present":
        setattr(obj, f"{field}_date", None)
        return
    date, precision = parse_partial(text)
    setattr(obj, f"{field}_date", date)
    setattr(obj, f"{field}_precision", precision)


def organization_named(name: str) -> Organization:
    """The organisation of that name, created when there is none."""
    found = Organization.objects.filter(name__iexact=name).first()
    if found:
        return found
    taken = set(
        Organization.objects.filter(slug__startswith=slug_of(name)[:40]).values_list(
            "slug", flat=True
        )
    )
    return Organization.objects.create(
        name=name[:200], slug=unique_slug(name, taken, 200, fallback="organization")
    )
