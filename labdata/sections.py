"""The lab-file sections: for each, its model and how its keys map to fields.

One table per section serves both directions: the loader reads a record's keys into
the fields it names, and the exporter writes the fields back under the same keys, in
the table's order. The format itself is described in demo/README.md.
"""

import enum
from collections.abc import Iterator
from dataclasses import dataclass

from django.db import models

from core.models import Organization, Topic
from events.models import Event, EventLink
from people import models as people
from publications.models import (
    Authorship,
    Publication,
    PublicationLink,
    SourceConflict,
    Venue,
)


class Kind(enum.Enum):
    VALUE = "a value as written; null is blank"
    NUMBER = "a number as written; null stays null"
    STAMP = "a date and time with its UTC offset (ISO 8601); null stays null"
    DATA = "a list as written, of numbers or of mappings"
    SOURCE = "where a row came from: a Provenance.Source, lab_file when left out"
    FLAG = "true, or left out for false"
    LINES = "a list of strings, kept as one text of lines"
    PERIOD = "start, end and ongoing: the partial dates of a DateRange"
    DATES = "date and end_date, both at the precision of date"
    REF = "the slug of another record"
    REFS = "a list of slugs: a many-to-many relation"
    ROWS = "a list of mappings: related rows with a section of their own"


class Layout(enum.Enum):
    BLOCK = "one key a line"
    COMPACT = "on one line when short and free of multi-line text"
    FLOW = "always on one line"


@dataclass(frozen=True)
class Field:
    """One key of a record, and the model field or relation it stands for."""

    key: str
    kind: Kind = Kind.VALUE
    target: str = ""
    """REF and REFS: the kind of record named, a key of REFERABLE."""
    section: "Section | None" = None
    """ROWS: the table of the related rows."""
    attr: str = ""
    """The model's field or relation, when its name is not the key."""

    @property
    def name(self) -> str:
        return self.attr or self.key


@dataclass(frozen=True)
class Section:
    """The records of one model: their keys in file order, and how they are laid out."""

    model: type[models.Model]
    fields: tuple[Field, ...]
    layout: Layout = Layout.BLOCK
    as_written: bool = False
    """Values taken exactly as written, a key left out reading as the default."""

    def of(self, *kinds: Kind) -> Iterator[Field]:
        """Return the fields of these kinds, in table order."""
        return (field for field in self.fields if field.kind in kinds)

    def has(self, kind: Kind) -> bool:
        return any(self.of(kind))


# The records a REF or REFS may name, by the name its error messages use.
REFERABLE: dict[str, type[models.Model]] = {
    "topic": Topic,
    "organization": Organization,
    "venue": Venue,
    "person": people.Person,
    "publication": Publication,
}


def values(*keys: str) -> tuple[Field, ...]:
    return tuple(Field(key) for key in keys)


def numbers(*keys: str) -> tuple[Field, ...]:
    return tuple(Field(key, Kind.NUMBER) for key in keys)


def lines(*keys: str) -> tuple[Field, ...]:
    return tuple(Field(key, Kind.LINES) for key in keys)


def flag(key: str) -> Field:
    return Field(key, Kind.FLAG)


def ref(key: str, target: str = "") -> Field:
    return Field(key, Kind.REF, target=target or key)


def refs(key: str, target: str) -> Field:
    return Field(key, Kind.REFS, target=target)


def rows(key: str, section: "Section", attr: str = "") -> Field:
    return Field(key, Kind.ROWS, section=section, attr=attr)


PERIOD = Field("start", Kind.PERIOD)  # with end and ongoing
DATES = Field("date", Kind.DATES)  # with end_date
PROVENANCE = (
    Field("source", Kind.SOURCE),
    Field("source_id"),
    Field("retrieved_at", Kind.STAMP),
)


def links(model: type[models.Model], *keys: str) -> Section:
    return Section(model, values(*keys), Layout.FLOW)


ORGANIZATION = Section(
    Organization,
    values("name", "short_name", "kind", "location", "url"),
    Layout.COMPACT,
)
VENUE = Section(Venue, values("name", "short_name", "kind", "url"), Layout.COMPACT)

RESEARCH_AREA = Section(
    people.ResearchArea, (*values("title", "subtitle"), *lines("items")), Layout.COMPACT
)
EDUCATION = Section(
    people.Education,
    (
        ref("organization"),
        *values("unit", "degree", "field", "location"),
        PERIOD,
        *values("advisor", "gpa"),
        *lines("honours", "notes"),
        *PROVENANCE,
    ),
)
EXPERIENCE = Section(
    people.Experience,
    (
        *values("kind"),
        ref("organization"),
        *values("role", "team", "location"),
        PERIOD,
        *values("supervisor", "supervisor_relation"),
        *lines("notes"),
        ref("publication"),
        *PROVENANCE,
        rows("links", links(people.ExperienceLink, "label", "url")),
    ),
)
AWARD = Section(
    people.Award,
    (*numbers("year"), *values("title", "granting_body", "detail", "times")),
    Layout.COMPACT,
)
SERVICE = Section(
    people.Service,
    (*values("kind", "role", "venue"), *numbers("year"), *values("detail")),
    Layout.COMPACT,
)
TEACHING = Section(
    people.Teaching,
    (
        *values("course_code", "course_title", "role"),
        ref("organization"),
        *values("term"),
    ),
    Layout.COMPACT,
)
OPEN_SOURCE = Section(
    people.OpenSourceContribution,
    (
        # The organisation of a contribution is free text, not a reference.
        *values("project", "organization", "role"),
        *numbers("start_year", "end_year"),
        *values("description"),
        ref("publication"),
        rows("links", links(people.ContributionLink, "label", "url")),
    ),
    Layout.COMPACT,
)
SKILL = Section(people.Skill, values("category", "items"), Layout.COMPACT)
INTEREST = Section(people.Interest, values("title", "description"), Layout.COMPACT)

PERSON = Section(
    people.Person,
    (
        *values("given_name", "family_name", "display_name", "preferred_name"),
        *values("native_name", "pronunciation", "role", "position_title", "headline"),
        ref("organization"),
        *values("team", "location", "office", "email", "secondary_email"),
        flag("publish_email"),
        *values("bio", "research_summary", "quote", "quote_author", "photo_alt"),
        *values("status", "written_from", "orcid", "openalex_id"),
        refs("topics", "topic"),
        rows("links", links(people.PersonLink, "kind", "label", "url")),
        rows("research_areas", RESEARCH_AREA),
        rows("education", EDUCATION),
        rows("experience", EXPERIENCE),
        rows("awards", AWARD),
        rows("service", SERVICE),
        rows("teaching", TEACHING),
        rows("open_source", OPEN_SOURCE),
        rows("skills", SKILL),
        rows("interests", INTEREST),
    ),
)

# An author's row is rewritten whole from the file, whatever the import mode.
AUTHOR = Section(
    Authorship,
    (
        *values("name"),
        ref("person"),
        flag("equal_contribution"),
        flag("corresponding"),
        flag("position_unknown"),
    ),
    Layout.FLOW,
    as_written=True,
)
CONFLICT = Section(
    SourceConflict, (*values("about"), *lines("statements")), Layout.COMPACT
)
PUBLICATION = Section(
    Publication,
    (
        *values("title", "alternative_title"),
        flag("working_title"),
        *values("kind"),
        *numbers("year", "month"),
        ref("venue"),
        *values("venue_detail", "status", "presentation", "selected"),
        *values("authors_complete", "authors_source"),
        *values("summary", "abstract", "key_results"),
        *values("doi", "arxiv_id", "openalex_id", "pages", "volume", "number"),
        *values("bibtex"),
        Field("orcid_put_codes", Kind.DATA),
        *numbers("cited_by_count"),
        Field("counts_by_year", Kind.DATA),
        Field("citations_retrieved_at", Kind.STAMP),
        *PROVENANCE,
        refs("topics", "topic"),
        rows("links", links(PublicationLink, "kind", "label", "url")),
        rows("authors", AUTHOR, attr="authorships"),
        rows("conflicts", CONFLICT),
    ),
)

EVENT = Section(
    Event,
    (
        *values("kind", "title"),
        DATES,
        *values("location", "host", "description"),
        refs("people", "person"),
        refs("publications", "publication"),
        refs("topics", "topic"),
        rows("links", links(EventLink, "kind", "label", "url")),
    ),
)
