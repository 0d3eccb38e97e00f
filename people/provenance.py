"""Where each field of a member's profile comes from (see core/provenance.py),
and what a profile says of the sources of its sections."""

import datetime
from collections.abc import Iterable

from core.models import Provenance
from core.provenance import (
    ADMIN,
    OPENALEX,
    ORCID,
    ROW_ORDER,
    ROW_OWNER,
    SEARCH_TEXT,
    SLUG,
    FieldSources,
    derived,
    from_lab,
    hidden,
    lab,
)
from people import models as people

MIN = datetime.datetime.min.replace(tzinfo=datetime.UTC)

PERIOD = {
    "start_date": (lab("start"),),
    "start_precision": (derived("how much of start the file gives"),),
    "end_date": (lab("end"),),
    "end_precision": (derived("how much of end the file gives"),),
    "is_ongoing": (lab("ongoing"),),
}
# Education and experience rows an import adds say so in their own source fields.
IMPORTED = (ORCID, OPENALEX)
ROW_PROVENANCE = {
    "source": (lab("source"), derived("the writer: lab_file, orcid, openalex…")),
    "source_id": (lab("source_id"), *IMPORTED),
    "retrieved_at": (lab("retrieved_at"), *IMPORTED),
}
LINK = {
    **from_lab("label", "url"),
    "position": (ROW_ORDER,),
}

FIELDS: FieldSources = {
    people.Person: {
        "given_name": (lab("given_name"), ORCID),
        "family_name": (lab("family_name"), ORCID),
        "display_name": (lab("display_name"), ORCID),
        **from_lab("preferred_name", "native_name", "pronunciation", "role"),
        **from_lab("position_title", "headline", "organization", "team", "location"),
        **from_lab("office", "bio", "research_summary", "quote", "quote_author"),
        **from_lab("photo_alt", "status", "written_from"),
        "topics": (lab("topics"), derived("keywords of an ORCID record")),
        "slug": (SLUG, derived("from the name an import gives")),
        # Shown only where the member agrees (publish_email).
        "email": (lab("email"),),
        "secondary_email": (lab("secondary_email"),),
        "publish_email": (lab("publish_email"),),
        "photo": (ADMIN,),
        "photo_thumbnail": (derived("from the photo"),),
        "orcid": (lab("orcid"), ORCID),
        "openalex_id": (lab("openalex_id"), OPENALEX),
        "lab_file": (derived("the file the lab-file loader read"),),
        "updated_at": (hidden("when the record was last saved"),),
    },
    people.PersonLink: {
        **LINK,
        "person": (ROW_OWNER,),
        "kind": (lab("kind"), derived("an ORCID researcher URL's kind")),
        "label": (lab("label"), ORCID),
        "url": (lab("url"), ORCID),
    },
    people.ResearchArea: {
        **from_lab("title", "subtitle", "items"),
        "person": (ROW_OWNER,),
        "position": (ROW_ORDER,),
    },
    people.Education: {
        **PERIOD,
        **ROW_PROVENANCE,
        **from_lab("field", "advisor", "gpa", "honours", "notes"),
        "organization": (lab("organization"), *IMPORTED),
        "unit": (lab("unit"), *IMPORTED),
        "degree": (lab("degree"), *IMPORTED),
        "location": (lab("location"), *IMPORTED),
        "person": (ROW_OWNER,),
        "position": (ROW_ORDER,),
    },
    people.Experience: {
        **PERIOD,
        **ROW_PROVENANCE,
        **from_lab("kind", "supervisor", "supervisor_relation", "notes"),
        **from_lab("publication"),
        "organization": (lab("organization"), *IMPORTED),
        "role": (lab("role"), *IMPORTED),
        "team": (lab("team"), *IMPORTED),
        "location": (lab("location"), *IMPORTED),
        "person": (ROW_OWNER,),
        "position": (ROW_ORDER,),
    },
    people.ExperienceLink: {**LINK, "experience": (ROW_OWNER,)},
    people.Award: {
        **from_lab("year", "title", "granting_body", "detail", "times"),
        "person": (ROW_OWNER,),
        "position": (ROW_ORDER,),
    },
    people.Service: {
        **from_lab("kind", "role", "venue", "year", "detail"),
        "person": (ROW_OWNER,),
        "position": (ROW_ORDER,),
    },
    people.Teaching: {
        **from_lab("course_code", "course_title", "role", "organization", "term"),
        "person": (ROW_OWNER,),
        "position": (ROW_ORDER,),
    },
    people.OpenSourceContribution: {
        **from_lab("project", "organization", "role", "start_year", "end_year"),
        **from_lab("description", "publication"),
        "person": (ROW_OWNER,),
        "position": (ROW_ORDER,),
    },
    people.ContributionLink: {**LINK, "contribution": (ROW_OWNER,)},
    people.Skill: {
        **from_lab("category", "items"),
        "person": (ROW_OWNER,),
        "position": (ROW_ORDER,),
    },
    people.Interest: {
        **from_lab("title", "description"),
        "person": (ROW_OWNER,),
        "position": (ROW_ORDER,),
    },
    people.PersonTopic: {
        "person": (derived("the member's topics and those of their papers"),),
        "topic": (derived("the member's topics and those of their papers"),),
        "interest": (derived("the topic is one of the member's topics"),),
        "papers": (derived("how many of the member's papers are on the topic"),),
    },
    people.PersonSearchDocument: {**SEARCH_TEXT, "person": (ROW_OWNER,)},
    people.SimilarPerson: {
        name: (derived("the members' search documents, papers and topics"),)
        for name in ("person", "other", "rank", "score", "reasons")
    },
    people.StaleSimilarity: {"person": (hidden("a note to recompute"),)},
}


def record_sources(person: people.Person) -> dict:
    """Where the member's own record and the rows without a source of their own
    come from: the lab file and the page it was written from, else the admin."""
    if person.lab_file:
        source, label = Provenance.Source.LAB_FILE, f"the lab file {person.lab_file}"
    else:
        source, label = Provenance.Source.MANUAL, "entered in the admin"
    if person.written_from:
        label += f", written from {person.written_from}"
    return {
        "source": source,
        "lab_file": person.lab_file,
        "written_from": person.written_from,
        "label": label,
    }


def row_sources(rows: Iterable[Provenance]) -> list[dict]:
    """The sources of a section's rows, each once in order, with how many rows it
    gave and when it was last read."""
    found: dict[str, dict] = {}
    for row in rows:
        entry = found.setdefault(
            row.source,
            {"source": row.source, "label": row.get_source_display(), "rows": 0},
        )
        entry["rows"] += 1
        if row.retrieved_at and row.retrieved_at > entry.get("retrieved_at", MIN):
            entry["retrieved_at"] = row.retrieved_at
    return [{"retrieved_at": None, **entry} for entry in found.values()]


def profile_sources(person: people.Person) -> dict:
    """What each section of the profile says of its sources (rows prefetched)."""
    return {
        "record": record_sources(person),
        "education": row_sources(person.education.all()),
        "experience": row_sources(person.experience.all()),
    }
