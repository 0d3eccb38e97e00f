"""Publications as citation files: BibTeX, CSL-JSON and RIS.

Each function takes publications fetched with `Publication.objects.with_authors()`;
`stream` reads a list of any length a chunk at a time, each in a fixed number of
queries, and is what every list export (pages and API) writes with.
"""

import json
import re
from collections.abc import Iterable, Iterator

from publications.bibtex.names import name_parts
from publications.bibtex.writer import paper_url, to_bibtex
from publications.keys import key_for
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


def to_bibtex_list(publications: Iterable[Publication]) -> str:
    """Many publications as one .bib file, each under its key on the site."""
    return "".join(stream(publications, "bibtex"))


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


# How BibTeX's "and others" reads in CSL: a last name that CSL processors print as
# one more author ("Zhou, Z., & others" in APA), so no reader takes a partial
# list for the whole. CSL has no field saying a list is incomplete.
CSL_OTHERS = {"literal": "others"}


def to_csl(publication: Publication) -> dict:
    """One publication as a CSL-JSON item."""
    authors = [_csl_name(a) for a in publication.ordered_authors]
    if authors and not publication.authors_complete:
        authors.append(CSL_OTHERS)
    item: dict = {
        "id": key_for(publication),
        # A manuscript: what CSL styles cite as unpublished.
        "type": "manuscript"
        if publication.under_review
        else CSL_TYPES.get(publication.kind, "document"),
        "title": publication.title,
        "author": authors,
        "citation-key": key_for(publication),
    }
    # No "issued" for an undated work or one under review: styles print "n.d.".
    if publication.cited_year is not None:
        date = [publication.year, publication.month][: 2 if publication.month else 1]
        item["issued"] = {"date-parts": [date]}
    # No container while under review or while the sources disagree on it: a
    # style prints one container, so naming both would cite it as in neither.
    venue = publication.venue
    container = publication.cited_venue
    if container:
        item["container-title"] = container
    if container and venue and venue.short_name:
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
    status = publication.status_note
    if status:
        item["status"] = status[0].lower() + status[1:]
    notes = [publication.venue_conflict_note, publication.author_order_note]
    if any(notes):
        item["note"] = ". ".join(note.rstrip(".") for note in notes if note) + "."
    return item


def to_csl_list(publications: Iterable[Publication]) -> list[dict]:
    return [to_csl(publication) for publication in publications]


# The formats a list is written in: media type and file name extension.
FORMATS = {
    "bibtex": ("application/x-bibtex", "bib"),
    "csl": ("application/vnd.citationstyles.csl+json", "json"),
    "ris": ("application/x-research-info-systems", "ris"),
}
# Publications read per query: memory stays flat however many a list holds.
CHUNK = 500
EMPTY_BIBTEX = "% No publication matches the query.\n"


def chunks(publications, size: int | None = None) -> Iterator[list[Publication]]:
    """The publications in lists of `size` (CHUNK): a queryset (or ranked results)
    is read a slice at a time, each slice in the same few queries."""
    size = size or CHUNK
    if not hasattr(publications, "__getitem__"):
        publications = list(publications)
    start = 0
    while True:
        batch = list(publications[start : start + size])
        if batch:
            yield batch
        if len(batch) < size:
            return
        start += size


def stream(publications, fmt: str) -> Iterator[str]:
    """A list as a citation file in `fmt` (see FORMATS), a chunk of text at a time."""
    written = 0
    for batch in chunks(publications):
        if fmt == "bibtex":
            text = "\n".join(to_bibtex(p) for p in batch)
            yield ("\n" if written else "") + text
        elif fmt == "csl":
            items = (json.dumps(to_csl(p), ensure_ascii=False, indent=2) for p in batch)
            yield ("[\n" if not written else ",\n") + ",\n".join(items)
        else:
            yield "".join("\r\n".join(_ris_record(p)) + "\r\n\r\n" for p in batch)
        written += len(batch)
    if fmt == "csl":
        yield "\n]\n" if written else "[]\n"
    elif fmt == "bibtex" and not written:
        # An empty body would lose its Content-Type on the way (DRF drops it).
        yield EMPTY_BIBTEX


def _ris_line(tag: str, value: str) -> str:
    # A value is one line; RIS has no escaping for line breaks.
    return f"{tag}  - {' '.join(str(value).split())}"


def _ris_record(publication: Publication) -> list[str]:
    kind = (
        "UNPB" if publication.under_review else RIS_TYPES.get(publication.kind, "GEN")
    )
    lines = [_ris_line("TY", kind)]
    lines.append(_ris_line("ID", key_for(publication)))
    lines.append(_ris_line("TI", publication.title))
    authors = publication.ordered_authors
    for authorship in authors:
        given, family, suffix = name_parts(authorship.name, authorship.family_name)
        lines.append(
            _ris_line("AU", ", ".join(p for p in (family, given, suffix) if p))
        )
    # RIS has no mark for a partial list: "others" is read as one more author (as
    # BibTeX's "and others"; rispy and reference managers keep it), and the N1
    # note below says so in words.
    if authors and not publication.authors_complete:
        lines.append(_ris_line("AU", "others"))
    year = publication.cited_year
    if year is not None:
        lines.append(_ris_line("PY", str(year)))
    if year is not None and publication.month:
        lines.append(_ris_line("DA", f"{year}/{publication.month:02d}//"))
    container = publication.cited_venue
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
    notes = (
        publication.status_note,
        publication.venue_conflict_note,
        publication.author_order_note,
        publication.authors_incomplete_note,
    )
    for note in notes:
        if note:
            lines.append(_ris_line("N1", note))
    lines.append("ER  - ")
    return lines


def to_ris(publications: Iterable[Publication]) -> str:
    """Publications as an RIS file: tagged lines, CRLF-terminated as the format asks."""
    return "".join(stream(publications, "ris"))
