"""Publications as citation files: BibTeX, CSL-JSON and RIS.

Each function takes publications fetched with `Publication.objects.with_authors()`,
so that a list of any length costs a fixed number of queries.
"""

import re
from collections import Counter
from collections.abc import Iterable

from publications.bibtex import (
    build_entry,
    citation_key,
    name_parts,
    paper_url,
    write_entries,
)
from publications.models import Publication

CSL_TYPES = {
    "conference_paper": "paper-conference",
    "workshop_paper": "paper-conference",
    "journal_article": "article-journal",
    "preprint": "article",
    "technical_report": "report",
    "software": "software",
    "thesis": "thesis",
    "other": "document",
}
RIS_TYPES = {
    "conference_paper": "CPAPER",
    "workshop_paper": "CPAPER",
    "journal_article": "JOUR",
    "preprint": "UNPB",
    "technical_report": "RPRT",
    "software": "COMP",
    "thesis": "THES",
    "other": "GEN",
}
_ENTRY_KEY = re.compile(r"^(\s*@\s*\w+\s*[{(]\s*)([^,\s]*)")


def to_bibtex_list(publications: Iterable[Publication]) -> str:
    """Many publications as one .bib file, each key used once."""
    publications = list(publications)
    keys = [citation_key(p) for p in publications]
    seen: Counter[str] = Counter()
    total = Counter(key.lower() for key in keys)
    chunks = []
    for publication, key in zip(publications, keys, strict=True):
        seen[key.lower()] += 1
        if total[key.lower()] > 1:
            # Keys compare without case in BibTeX; suffix a, b, c… as styles do.
            key = f"{key}{_suffix(seen[key.lower()])}"
        chunks.append(_entry_text(publication, key))
    return "\n".join(chunks)


def _suffix(n: int) -> str:
    letters = ""
    while n:
        n, rest = divmod(n - 1, 26)
        letters = chr(ord("a") + rest) + letters
    return letters


def _entry_text(publication: Publication, key: str) -> str:
    if publication.bibtex.strip():
        text = publication.bibtex.strip()
        return _ENTRY_KEY.sub(lambda m: m.group(1) + key, text, count=1) + "\n"
    entry = build_entry(publication)
    entry.key = key
    return write_entries([entry]).strip() + "\n"


def _csl_name(authorship) -> dict[str, str]:
    given, family, suffix = name_parts(authorship.name, authorship.family_name)
    if not given:
        return {"literal": family}
    name = {"family": family, "given": given}
    if suffix:
        name["suffix"] = suffix
    return name


def _csl_pages(pages: str) -> str:
    return re.sub(r"\s*[–—]\s*|\s*--\s*", "-", pages)


def to_csl(publication: Publication) -> dict:
    """One publication as a CSL-JSON item."""
    item: dict = {
        "id": publication.slug,
        "type": CSL_TYPES.get(publication.kind, "document"),
        "title": publication.title,
        "author": [_csl_name(a) for a in publication.ordered_authors],
        "citation-key": citation_key(publication),
    }
    # No "issued" for an undated work: CSL styles print it as "n.d.".
    if publication.year is not None:
        date = [publication.year, publication.month][: 2 if publication.month else 1]
        item["issued"] = {"date-parts": [date]}
    venue = publication.venue
    container = venue.name if venue else publication.venue_detail
    if container:
        item["container-title"] = container
    if venue and venue.short_name:
        item["container-title-short"] = venue.short_name
    optional = {
        "DOI": publication.doi,
        "URL": paper_url(publication)
        or (
            f"https://arxiv.org/abs/{publication.arxiv_id}"
            if publication.arxiv_id
            else ""
        ),
        "page": _csl_pages(publication.pages),
        "volume": publication.volume,
        "issue": publication.number,
    }
    item.update({key: value for key, value in optional.items() if value})
    if publication.arxiv_id:
        item["number"] = f"arXiv:{publication.arxiv_id}"
    if publication.status_note:
        item["status"] = publication.status_note.lower()
    if publication.author_order_note:
        item["note"] = publication.author_order_note
    return item


def to_csl_list(publications: Iterable[Publication]) -> list[dict]:
    return [to_csl(publication) for publication in publications]


def _ris_line(tag: str, value: str) -> str:
    # A value is one line; RIS has no escaping for line breaks.
    return f"{tag}  - {' '.join(str(value).split())}"


def _ris_record(publication: Publication) -> list[str]:
    lines = [_ris_line("TY", RIS_TYPES.get(publication.kind, "GEN"))]
    lines.append(_ris_line("ID", publication.slug))
    lines.append(_ris_line("TI", publication.title))
    for authorship in publication.ordered_authors:
        given, family, suffix = name_parts(authorship.name, authorship.family_name)
        lines.append(
            _ris_line("AU", ", ".join(p for p in (family, given, suffix) if p))
        )
    if publication.year is not None:
        lines.append(_ris_line("PY", str(publication.year)))
    if publication.year is not None and publication.month:
        lines.append(_ris_line("DA", f"{publication.year}/{publication.month:02d}//"))
    container = (
        publication.venue.name if publication.venue else publication.venue_detail
    )
    if container:
        lines.append(_ris_line("T2", container))
        if publication.kind == Publication.Kind.JOURNAL_ARTICLE:
            lines.append(_ris_line("JO", container))
    for tag, value in (("VL", publication.volume), ("IS", publication.number)):
        if value:
            lines.append(_ris_line(tag, value))
    if publication.pages:
        first, _, last = _csl_pages(publication.pages).partition("-")
        lines.append(_ris_line("SP", first))
        if last:
            lines.append(_ris_line("EP", last))
    if publication.doi:
        lines.append(_ris_line("DO", publication.doi))
    url = paper_url(publication)
    if url:
        lines.append(_ris_line("UR", url))
    if publication.arxiv_id:
        lines.append(_ris_line("UR", f"https://arxiv.org/abs/{publication.arxiv_id}"))
    for note in (publication.status_note, publication.author_order_note):
        if note:
            lines.append(_ris_line("N1", note))
    lines.append("ER  - ")
    return lines


def to_ris(publications: Iterable[Publication]) -> str:
    """Publications as an RIS file: tagged lines, CRLF-terminated as the format asks."""
    records = ["\r\n".join(_ris_record(p)) for p in publications]
    return "".join(record + "\r\n\r\n" for record in records)
