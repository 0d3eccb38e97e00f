"""OpenAlex works, authors and list responses, read into plain records."""

import datetime
import re
from collections.abc import Iterator

from sources.identifiers import arxiv_id_in, clean_doi, clean_openalex_id, clean_orcid
from sources.records import (
    AuthorRecord,
    PartialDate,
    PersonRecord,
    WorkRecord,
    check_storable,
    citation_count,
)


class WrongKind(ValueError):
    """The document is JSON, but not an OpenAlex work, author or list."""


# OpenAlex's work types (https://docs.openalex.org/api-entities/works/work-object)
# by the kind of publication they are; "article" depends on where it appeared.
_KINDS = {
    "preprint": "preprint",
    "dissertation": "thesis",
    "report": "technical_report",
    "software": "software",
}
_ARTICLE_KINDS = {
    "conference": "conference_paper",
    "journal": "journal_article",
    "repository": "preprint",
}
_VENUE_KINDS = {
    "conference": "conference",
    "journal": "journal",
    "repository": "preprint",
}


def kind_of(document: dict) -> str:
    """ "work", "author" or "list"; WrongKind for anything else."""
    if not isinstance(document, dict):
        raise WrongKind("expected a JSON object")
    if isinstance(document.get("results"), list):
        return "list"
    entity = clean_openalex_id(str(document.get("id") or ""))
    if entity.startswith("W"):
        return "work"
    if entity.startswith("A"):
        return "author"
    raise WrongKind(
        "not an OpenAlex work, author or list response"
        + (f" (its id is {document['id']})" if document.get("id") else "")
    )


def parse_document(document: dict) -> tuple[list[WorkRecord], list[PersonRecord]]:
    """The works and the authors a work, an author or a list response holds."""
    kind = kind_of(document)
    if kind == "work":
        return [parse_work(document)], []
    if kind == "author":
        return [], [parse_author(document)]
    works: list[WorkRecord] = []
    authors: list[PersonRecord] = []
    for item in document["results"]:
        found_works, found_authors = parse_document(item)
        works += found_works
        authors += found_authors
    return works, authors


def parse_works(items: list) -> tuple[list[WorkRecord], list[str]]:
    """The works of a list response that can be read, and one line per other."""
    works, errors = [], []
    for item in items:
        try:
            works.append(parse_work(item))
        except (ValueError, KeyError, TypeError, AttributeError) as exc:
            name = item.get("id") if isinstance(item, dict) else None
            errors.append(f"OpenAlex work {name or '(no id)'}: {exc}")
    return works, errors


def parse_work(work: dict) -> WorkRecord:
    """One OpenAlex work object; ValueError (or KeyError, TypeError) for one that
    cannot be stored as it is."""
    openalex_id = clean_openalex_id(work["id"])
    primary = work.get("primary_location") or {}
    source = primary.get("source") or {}
    source_type = source.get("type") or ""
    work_type = work.get("type") or ""
    if work_type == "article":
        kind = _ARTICLE_KINDS.get(source_type, "other")
    else:
        kind = _KINDS.get(work_type, "other")
    doi = clean_doi(work.get("doi") or "")
    cited_by = work.get("cited_by_count")
    record = WorkRecord(
        source="openalex",
        source_id=openalex_id,
        title=" ".join((work.get("title") or work.get("display_name") or "").split()),
        kind=kind,
        date=_work_date(work),
        authors=[_authorship(a) for a in work.get("authorships") or []],
        doi=doi,
        openalex_id=openalex_id,
        arxiv_id=_arxiv_id(work, doi),
        venue=" ".join((source.get("display_name") or "").split()),
        venue_kind=_VENUE_KINDS.get(source_type, "other") if source else "",
        oa_url=(work.get("open_access") or {}).get("oa_url") or "",
        abstract=abstract_text(work.get("abstract_inverted_index")),
        topics=[
            t["display_name"] for t in work.get("topics") or [] if t.get("display_name")
        ],
        cited_by_count=None if cited_by is None else citation_count(cited_by),
        counts_by_year=sorted(
            (
                {
                    "year": int(c["year"]),
                    "cited_by_count": citation_count(
                        c["cited_by_count"], f"cited_by_count of {c['year']}"
                    ),
                }
                for c in work.get("counts_by_year") or []
            ),
            key=lambda c: c["year"],
        ),
    )
    check_storable(record)
    return record


def parse_author(author: dict) -> PersonRecord:
    """One OpenAlex author object: identifiers, names and affiliations."""
    names = [author.get("display_name") or ""]
    names += author.get("display_name_alternatives") or []
    institutions = [
        a["institution"]["display_name"]
        for a in author.get("affiliations") or []
        if (a.get("institution") or {}).get("display_name")
    ]
    for institution in author.get("last_known_institutions") or []:
        if (
            institution.get("display_name")
            and institution["display_name"] not in institutions
        ):
            institutions.append(institution["display_name"])
    display = names[0]
    return PersonRecord(
        source="openalex",
        orcid=clean_orcid(author.get("orcid") or ""),
        openalex_id=clean_openalex_id(author["id"]),
        credit_name=display,
        other_names=[n for n in dict.fromkeys(names[1:]) if n and n != display],
        affiliations=institutions,
    )


def abstract_text(inverted: dict | None) -> str:
    """The abstract an `abstract_inverted_index` ({word: [positions]}) encodes."""
    if not inverted:
        return ""
    placed = sorted(
        (position, word)
        for word, positions in inverted.items()
        for position in positions
    )
    return " ".join(word for _, word in placed)


def _authorship(authorship: dict) -> AuthorRecord:
    author = authorship.get("author") or {}
    return AuthorRecord(
        name=authorship.get("raw_author_name") or author.get("display_name") or "",
        orcid=clean_orcid(author.get("orcid") or ""),
        openalex_id=clean_openalex_id(author.get("id") or ""),
        institutions=[
            i["display_name"]
            for i in authorship.get("institutions") or []
            if i.get("display_name")
        ],
        corresponding=bool(authorship.get("is_corresponding")),
    )


def _work_date(work: dict) -> PartialDate | None:
    text = work.get("publication_date") or ""
    try:
        day = datetime.date.fromisoformat(text)
    except ValueError:
        year = work.get("publication_year")
        return PartialDate(int(year)) if year else None
    return PartialDate(day.year, day.month, day.day)


def _arxiv_id(work: dict, doi: str) -> str:
    for url in _location_urls(work):
        found = arxiv_id_in(url)
        if found:
            return found
    match = re.fullmatch(r"10\.48550/arxiv\.(.+)", doi)
    return match.group(1) if match else ""


def _location_urls(work: dict) -> Iterator[str]:
    for location in [work.get("primary_location"), *(work.get("locations") or [])]:
        for key in ("landing_page_url", "pdf_url"):
            if location and location.get(key):
                yield location[key]
