"""Where each value the site shows comes from: the vocabulary of the field lists.

Each app's `provenance.py` lists every field of its models with the sources that
may give it (`FIELDS`); core's own models are listed here. A value the site shows
must come from one of its field's sources: tests/labdata/test_fidelity.py fails
for a field left out of the lists and for a demo value its lab file does not give.
docs/provenance.md explains the lists and what a profile says of its sources.
"""

import enum
from dataclasses import dataclass

from django.db import models

from core.models import Lab, Organization, Topic, TopicClosure


class Origin(enum.StrEnum):
    LAB_FILE = "lab file"
    BIBTEX = "BibTeX file"
    ORCID = "ORCID"
    OPENALEX = "OpenAlex"
    ADMIN = "the admin"
    DERIVED = "derived"
    HIDDEN = "not shown"


@dataclass(frozen=True)
class Given:
    """One source of a field: where the value comes from, and which key or rule."""

    origin: Origin
    detail: str = ""

    def __str__(self) -> str:
        return f"{self.origin}: {self.detail}" if self.detail else str(self.origin)

    @property
    def stated(self) -> bool:
        """Whether a source states the value (rather than the site working it out)."""
        return self.origin not in (Origin.DERIVED, Origin.HIDDEN)


def lab(key: str) -> Given:
    """The value of the lab-file key `key` (the admin and the API may change it)."""
    return Given(Origin.LAB_FILE, key)


def derived(how: str) -> Given:
    return Given(Origin.DERIVED, how)


def hidden(why: str) -> Given:
    return Given(Origin.HIDDEN, why)


BIBTEX = Given(Origin.BIBTEX)
ORCID = Given(Origin.ORCID)
OPENALEX = Given(Origin.OPENALEX)
ADMIN = Given(Origin.ADMIN)

# Fields by model, then by name (an auto-created primary key is never shown).
FieldSources = dict[type[models.Model], dict[str, tuple[Given, ...]]]


def from_lab(*keys: str) -> dict[str, tuple[Given, ...]]:
    """Fields whose only source is the lab-file key of the same name."""
    return {key: (lab(key),) for key in keys}


ROW_OWNER = derived("the record whose list in the file holds the row")
ROW_ORDER = derived("the row's place in its list")
SLUG = lab("slug")
SAVED = hidden("when the record was last saved")
# A search document: the owner's text, as its app's search.py builds it.
SEARCH_TEXT = {
    name: (derived("the record's search text"),)
    for name in ("heading", "topics", "body", "extra", "vector")
}

FIELDS: FieldSources = {
    Topic: {
        **from_lab("name", "parent", "aliases", "description"),
        "slug": (SLUG,),
        "updated_at": (SAVED,),
    },
    TopicClosure: {
        "ancestor": (derived("the topic tree (parent)"),),
        "descendant": (derived("the topic tree (parent)"),),
        "depth": (derived("the topic tree (parent)"),),
    },
    Organization: {
        **from_lab("short_name", "kind", "location", "url"),
        "name": (lab("name"), ORCID, OPENALEX),
        "slug": (SLUG, derived("from the name an import gives")),
        "updated_at": (SAVED,),
    },
    # The group: the lab files' `lab:` mapping (labdata/lab.py), or the admin.
    Lab: {
        **{
            key: (lab(f"lab: {key}"), ADMIN)
            for key in ("name", "description", "kind", "address", "url", "email")
        },
        "logo_alt": (lab("lab: logo_alt"), ADMIN),
        "logo": (ADMIN,),
        "id": (hidden("the one record's fixed key"),),
    },
}
