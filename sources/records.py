"""What the sources say, as plain records: parsers produce them, importers read them."""

import dataclasses
import datetime
from dataclasses import dataclass, field

# More citations than any work has: a larger count is a source's error.
CITATION_LIMIT = 10_000_000


@dataclass(frozen=True)
class PartialDate:
    """A date known to a year, a month or a day (precision: year, month or day)."""

    year: int
    month: int | None = None
    day: int | None = None

    @property
    def precision(self) -> str:
        if self.day is not None:
            return "day"
        return "month" if self.month is not None else "year"

    @property
    def date(self) -> datetime.date:
        return datetime.date(self.year, self.month or 1, self.day or 1)


@dataclass
class AuthorRecord:
    """One author of a work, in print order."""

    name: str
    orcid: str = ""
    openalex_id: str = ""
    institutions: list[str] = field(default_factory=list)
    corresponding: bool = False


@dataclass
class WorkRecord:
    """A publication as a source lists it."""

    source: str  # "orcid" or "openalex"
    source_id: str  # the work's id there: an OpenAlex W-id, an ORCID put-code
    title: str
    kind: str  # a Publication.Kind value
    date: PartialDate | None = None
    authors: list[AuthorRecord] = field(default_factory=list)
    doi: str = ""
    openalex_id: str = ""
    arxiv_id: str = ""
    put_code: int | None = None
    venue: str = ""
    venue_kind: str = ""  # a Venue.Kind value, blank when unknown
    oa_url: str = ""
    abstract: str = ""
    topics: list[str] = field(default_factory=list)
    cited_by_count: int | None = None
    counts_by_year: list[dict] = field(default_factory=list)
    other_ids: dict[str, str] = field(default_factory=dict)


def citation_count(value: object, what: str = "cited_by_count") -> int:
    """A source's count of citations, checked: ValueError unless a whole number
    from 0 to CITATION_LIMIT."""
    if isinstance(value, bool) or not isinstance(value, int):
        raise ValueError(f"{what} {value!r} is not a whole number")
    if not 0 <= value <= CITATION_LIMIT:
        raise ValueError(f"{what} {value:,} is outside 0 to {CITATION_LIMIT:,}")
    return value


def check_storable(record: object) -> None:
    """ValueError naming the first text of a record no database may store (a NUL
    character: PostgreSQL refuses it)."""
    for f in dataclasses.fields(record):
        for value in _texts(getattr(record, f.name)):
            if "\x00" in value:
                raise ValueError(f"{f.name} holds a NUL character (\\x00)")


def _texts(value: object):
    if isinstance(value, str):
        yield value
    elif dataclasses.is_dataclass(value):
        for f in dataclasses.fields(value):
            yield from _texts(getattr(value, f.name))
    elif isinstance(value, dict):
        for key, item in value.items():
            yield from _texts(key)
            yield from _texts(item)
    elif isinstance(value, list | tuple):
        for item in value:
            yield from _texts(item)


@dataclass
class AffiliationRecord:
    """An employment or an education entry of an ORCID record."""

    put_code: int | None
    organization: str
    department: str = ""
    role: str = ""
    start: PartialDate | None = None
    end: PartialDate | None = None
    location: str = ""


@dataclass
class LinkRecord:
    label: str
    url: str


@dataclass
class PersonRecord:
    """A researcher as a source describes them."""

    source: str
    orcid: str = ""
    openalex_id: str = ""
    given_name: str = ""
    family_name: str = ""
    credit_name: str = ""
    other_names: list[str] = field(default_factory=list)
    keywords: list[str] = field(default_factory=list)
    links: list[LinkRecord] = field(default_factory=list)
    affiliations: list[str] = field(default_factory=list)  # OpenAlex institutions
    employments: list[AffiliationRecord] = field(default_factory=list)
    educations: list[AffiliationRecord] = field(default_factory=list)
    works: list[WorkRecord] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)  # records left out, and why

    @property
    def display_name(self) -> str:
        return self.credit_name or f"{self.given_name} {self.family_name}".strip()
