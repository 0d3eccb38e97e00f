"""Machine-readable page metadata: schema.org JSON-LD and Google Scholar tags.

Every builder reads only what the detail views already prefetch, so adding the
metadata costs no queries. No builder ever includes an email address.
"""

import html
import json
from collections.abc import Callable
from typing import Any

from django.conf import settings
from django.core.serializers.json import DjangoJSONEncoder
from django.urls import reverse
from django.utils.html import strip_tags

from directory.dates import iso_partial
from directory.text import render_markdown

SCHEMA = "https://schema.org"

# The characters that could end a <script> element or open a comment inside it;
# the same set Django's json_script escapes.
_SCRIPT_ESCAPES = {ord("<"): "\\u003C", ord(">"): "\\u003E", ord("&"): "\\u0026"}

Absolute = Callable[[str], str]


def to_json_for_script(data: Any) -> str:
    """JSON that is safe inside a <script> element whatever its strings hold."""
    text = json.dumps(data, cls=DjangoJSONEncoder, ensure_ascii=False, indent=None)
    return text.translate(_SCRIPT_ESCAPES)


def _clean(data: dict[str, Any]) -> dict[str, Any]:
    """Drop the properties that hold nothing."""
    return {k: v for k, v in data.items() if v not in ("", None, [], {})}


def plain_text(markdown_text: str) -> str:
    """Markdown as one line of plain text."""
    return " ".join(html.unescape(strip_tags(render_markdown(markdown_text))).split())


def _organization(org) -> dict[str, Any]:
    kind = "CollegeOrUniversity" if org.kind == "university" else "Organization"
    return _clean(
        {
            "@type": kind,
            "name": org.name,
            "alternateName": org.short_name,
            "url": org.url,
        }
    )


def _person_ref(name: str, person, absolute: Absolute) -> dict[str, Any]:
    return _clean(
        {
            "@type": "Person",
            "name": name,
            "url": absolute(person.get_absolute_url()) if person else "",
        }
    )


def person_jsonld(person, absolute: Absolute) -> dict[str, Any]:
    """A member's profile as a schema.org Person."""
    url = absolute(person.get_absolute_url())
    alumni, seen = [], set()
    for row in person.education.all():
        if row.organization_id not in seen:
            seen.add(row.organization_id)
            alumni.append(_organization(row.organization))
    return _clean(
        {
            "@context": SCHEMA,
            "@type": "Person",
            "@id": f"{url}#person",
            "url": url,
            "name": person.display_name,
            "givenName": person.given_name,
            "familyName": person.family_name,
            "alternateName": [
                n for n in (person.native_name, person.preferred_name) if n
            ],
            "jobTitle": person.position_title or person.get_role_display(),
            "description": person.headline,
            "image": absolute(person.photo.url) if person.photo else "",
            "affiliation": _organization(person.organization)
            if person.organization
            else None,
            "memberOf": {
                "@type": "ResearchOrganization",
                "name": settings.LAB_NAME,
                "url": absolute(reverse("home")),
            },
            "alumniOf": alumni,
            "knowsAbout": [topic.name for topic in person.topics.all()],
            "sameAs": [link.url for link in person.links.all()],
        }
    )


def _venue(publication) -> tuple[str, dict[str, Any] | None]:
    """The property naming where a work appeared, and its value."""
    venue = publication.venue
    if venue is None:
        if not publication.venue_detail:
            return "isPartOf", None
        return "isPartOf", {"@type": "CreativeWork", "name": publication.venue_detail}
    if venue.kind == "preprint":
        return "publisher", _clean(
            {"@type": "Organization", "name": venue.name, "url": venue.url}
        )
    return "isPartOf", _clean(
        {
            "@type": "Periodical" if venue.kind == "journal" else "CreativeWorkSeries",
            "name": venue.name,
            "alternateName": venue.short_name,
            "url": venue.url,
        }
    )


def publication_date(publication, separator: str = "-") -> str:
    if publication.month:
        return f"{publication.year:04d}{separator}{publication.month:02d}"
    return f"{publication.year:04d}"


def publication_jsonld(publication, absolute: Absolute) -> dict[str, Any]:
    """A publication as a schema.org ScholarlyArticle, authors in print order."""
    url = absolute(publication.get_absolute_url())
    venue_property, venue = _venue(publication)
    same_as = []
    if publication.doi:
        same_as.append(f"https://doi.org/{publication.doi}")
    if publication.arxiv_id:
        same_as.append(f"https://arxiv.org/abs/{publication.arxiv_id}")
    return _clean(
        {
            "@context": SCHEMA,
            "@type": "ScholarlyArticle",
            "@id": url,
            "url": url,
            "headline": publication.title,
            "name": publication.title,
            "alternativeHeadline": publication.alternative_title,
            "author": [
                _person_ref(a.name, a.person, absolute)
                for a in publication.authorships.all()
            ],
            "datePublished": publication_date(publication),
            venue_property: venue,
            "abstract": publication.summary,
            "keywords": [topic.name for topic in publication.topics.all()],
            "pagination": publication.pages,
            "creativeWorkStatus": publication.get_status_display(),
            "sameAs": same_as,
        }
    )


def event_jsonld(event, absolute: Absolute) -> dict[str, Any]:
    """An event (talk, news item) as a schema.org Event."""
    url = absolute(event.get_absolute_url())
    people = [
        _person_ref(person.display_name, person, absolute)
        for person in event.people.all()
    ]
    publication = event.publication
    return _clean(
        {
            "@context": SCHEMA,
            "@type": "Event",
            "@id": url,
            "url": url,
            "name": event.title,
            "startDate": iso_partial(event.date, event.date_precision),
            "endDate": iso_partial(event.end_date, event.date_precision),
            "description": plain_text(event.description),
            "location": _clean(
                {"@type": "Place", "name": event.location, "address": event.location}
            )
            if event.location
            else None,
            "organizer": {"@type": "Organization", "name": event.host}
            if event.host
            else None,
            "performer": people,
            "about": _clean(
                {
                    "@type": "ScholarlyArticle",
                    "name": publication.title,
                    "url": absolute(publication.get_absolute_url()),
                }
            )
            if publication
            else None,
            "keywords": [topic.name for topic in event.topics.all()],
        }
    )


def _pdf_url(publication) -> str:
    for link in publication.links.all():
        if link.kind == "pdf":
            return link.url
    if publication.arxiv_id:
        return f"https://arxiv.org/pdf/{publication.arxiv_id}"
    return ""


def _container(publication) -> tuple[str, str]:
    """The Scholar tag naming the journal or conference, and its title."""
    venue = publication.venue
    title = venue.name if venue else publication.venue_detail
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
    tags += [("citation_author", a.name) for a in publication.authorships.all()]
    tags.append(("citation_publication_date", publication_date(publication, "/")))
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
