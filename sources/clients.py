"""The live APIs: ORCID's public record and OpenAlex's author with their works."""

import requests
from django.conf import settings

from jobs.registry import Progress
from sources import openalex, orcid
from sources.http import SourceError, get_json, new_session
from sources.records import PersonRecord, WorkRecord

PER_PAGE = 200


def fetch_orcid_record(
    orcid_id: str, *, session: requests.Session | None = None
) -> PersonRecord:
    """`{ORCID_API_URL}/{iD}/record`, parsed."""
    url = f"{settings.ORCID_API_URL}/{orcid_id}/record"
    document = get_json(session or new_session(), url)
    try:
        return orcid.parse_record(document)
    except (ValueError, KeyError, TypeError) as exc:
        raise SourceError(f"GET {url}: {exc}") from None


def fetch_openalex_author(
    author_id: str,
    *,
    session: requests.Session | None = None,
    progress: Progress | None = None,
) -> tuple[PersonRecord, list[WorkRecord], list[str]]:
    """An OpenAlex author and all their works, paged with a cursor, and one line
    per work that cannot be read (the others are read all the same)."""
    session = session or new_session()
    base = settings.OPENALEX_API_URL
    # OpenAlex's polite pool: callers who name an address get steadier service.
    mailto = {"mailto": settings.OPENALEX_MAILTO} if settings.OPENALEX_MAILTO else {}
    url = f"{base}/authors/{author_id}"
    document = get_json(session, url, params=mailto or None)
    try:
        if openalex.kind_of(document) != "author":
            raise openalex.WrongKind("not an OpenAlex author")
        author = openalex.parse_author(document)
    except (ValueError, KeyError, TypeError) as exc:
        raise SourceError(f"GET {url}: {exc}") from None
    works: list[WorkRecord] = []
    errors: list[str] = []
    cursor: str | None = "*"
    url = f"{base}/works"
    while cursor:
        params = {
            "filter": f"author.id:{author_id}",
            "cursor": cursor,
            "per-page": PER_PAGE,
            **mailto,
        }
        page = get_json(session, url, params=params)
        try:
            results = page["results"]
            found, unread = openalex.parse_works(results)
            works += found
            errors += unread
            meta = page.get("meta") or {}
        except (ValueError, KeyError, TypeError) as exc:
            raise SourceError(f"GET {url} (cursor {cursor}): {exc}") from None
        if progress:
            progress(len(works), int(meta.get("count") or len(works)), "OpenAlex works")
        cursor = meta.get("next_cursor") if results else None
    return author, works, errors
