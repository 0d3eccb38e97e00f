"""A publication as schema.org JSON-LD and Google Scholar's citation tags."""

from typing import Any

from core.lib.identifiers import arxiv_url, doi_url, openalex_url
from core.structured_data import SCHEMA, Absolute, clean, identified, person_ref


def _venue(publication) -> tuple[str, dict[str, Any] | None]:
    """The property naming where a work appeared, and its value: none while it is
    under review or while the sources disagree on it (schema.org has no way to say
    "one of these"; `creativeWorkStatus` and the page carry the statements)."""
    if not publication.cited_venue:
        return "isPartOf", None
    venue = publication.venue
    if venue is None:
        if not publication.venue_detail:
            return "isPartOf", None
        return "isPartOf", {"@type": "CreativeWork", "name": publication.venue_detail}
    if venue.kind == "preprint":
        return "publisher", clean(
            {"@type": "Organization", "name": venue.name, "url": venue.url}
        )
    return "isPartOf", clean(
        {
            "@type": "Periodical" if venue.kind == "journal" else "CreativeWorkSeries",
            "name": venue.name,
            "alternateName": venue.short_name,
            "url": venue.url,
        }
    )


def publication_date(publication, separator: str = "-") -> str:
    """The date of publication: none for an undated work or one under review."""
    if publication.cited_year is None:
        return ""
    if publication.month:
        return f"{publication.year:04d}{separator}{publication.month:02d}"
    return f"{publication.year:04d}"


def publication_jsonld(publication, absolute: Absolute) -> dict[str, Any]:
    """A publication as a schema.org ScholarlyArticle, authors in print order."""
    url = absolute(publication.get_absolute_url())
    venue_property, venue = _venue(publication)
    ids = [
        ("DOI", publication.doi, doi_url(publication.doi)),
        ("arXiv", publication.arxiv_id, arxiv_url(publication.arxiv_id)),
        ("OpenAlex", publication.openalex_id, openalex_url(publication.openalex_id)),
    ]
    return clean(
        {
            "@context": SCHEMA,
            "@type": "ScholarlyArticle",
            "@id": url,
            "url": url,
            "headline": publication.title,
            "name": publication.title,
            "alternativeHeadline": publication.alternative_title,
            "author": [
                person_ref(a.name, a.person, absolute)
                for a in publication.ordered_authors
            ],
            "datePublished": publication_date(publication),
            venue_property: venue,
            "abstract": publication.abstract or publication.summary,
            "keywords": [topic.name for topic in publication.topics.all()],
            "pagination": publication.pages,
            "creativeWorkStatus": publication.status_note
            or ("Published" if publication.status == "published" else ""),
            # A partial list must not read as the whole: say so where credit is due.
            "creditText": _credit_text(publication),
            "comment": publication.venue_conflict_note,
            **identified(ids),
        }
    )


def _credit_text(publication) -> str:
    if publication.authors_complete:
        return ""
    names = [a.name for a in publication.ordered_authors]
    names += [a.name for a in publication.unplaced_authors]
    return f"{', '.join(names)} and others ({publication.authors_incomplete_note})"


def _pdf_url(publication) -> str:
    for link in publication.links.all():
        if link.kind == "pdf" and link.url:
            return link.url
    if publication.arxiv_id:
        return f"https://arxiv.org/pdf/{publication.arxiv_id}"
    return ""


def _container(publication) -> tuple[str, str]:
    """The Scholar tag naming the journal or conference, and its title: none while
    the work is under review or the sources disagree on the venue (Scholar reads
    one venue; two tags would have it pick)."""
    venue = publication.venue
    title = publication.cited_venue
    kind = venue.kind if venue else ""
    if publication.kind == "journal_article" or kind == "journal":
        return "citation_journal_title", title
    if publication.kind in ("conference_paper", "workshop_paper") or kind in (
        "conference",
        "workshop",
    ):
        return "citation_conference_title", title
    return "", ""


def scholar_meta(publication, absolute: Absolute) -> list[tuple[str, str]]:
    """Google Scholar's citation_* tags, as (name, content) pairs in order."""
    tags = [("citation_title", publication.title)]
    tags += [("citation_author", a.name) for a in publication.ordered_authors]
    # No date for a work under review: Scholar would list it as published then.
    date = publication_date(publication, "/")
    if date:
        tags.append(("citation_publication_date", date))
    container, title = _container(publication)
    if container and title:
        tags.append((container, title))
    if publication.volume:
        tags.append(("citation_volume", publication.volume))
    if publication.number:
        tags.append(("citation_issue", publication.number))
    if publication.pages:
        first, _, last = publication.pages.replace("--", "–").partition("–")
        tags.append(("citation_firstpage", first.strip()))
        if last.strip():
            tags.append(("citation_lastpage", last.strip()))
    if publication.doi:
        tags.append(("citation_doi", publication.doi))
    if publication.arxiv_id:
        tags.append(("citation_arxiv_id", publication.arxiv_id))
    pdf = _pdf_url(publication)
    if pdf:
        tags.append(("citation_pdf_url", pdf))
    tags.append(
        ("citation_abstract_html_url", absolute(publication.get_absolute_url()))
    )
    return [(name, content) for name, content in tags if content]
