"""BibTeX for publications: the source's entry where kept, else one built."""

import re

import bibtexparser
from bibtexparser.model import Entry, Field

ENTRY_TYPES = {
    "conference_paper": "inproceedings",
    "workshop_paper": "inproceedings",
    "journal_article": "article",
    "preprint": "misc",
    "technical_report": "techreport",
    "software": "software",
    "thesis": "phdthesis",
    "other": "misc",
}
_LATEX_SPECIAL = re.compile(r"([&%$#_{}])")


def citation_key(publication) -> str:
    """A key in the usual style: first author's family name, year, first title word."""
    first = publication.authorships.all()[:1]
    family = first[0].name.split()[-1] if first else "anon"
    word = re.sub(r"[^a-z0-9]", "", publication.title.split()[0].lower()) or "work"
    return re.sub(r"[^A-Za-z0-9]", "", family).lower() + str(publication.year) + word


def _escape(value: str) -> str:
    return _LATEX_SPECIAL.sub(r"\\\1", value)


def _bibtex_name(name: str) -> str:
    parts = name.split()
    if len(parts) < 2:
        return "{" + _escape(name) + "}"
    return f"{_escape(parts[-1])}, {_escape(' '.join(parts[:-1]))}"


def build_entry(publication) -> Entry:
    authors = [_bibtex_name(a.name) for a in publication.authorships.all()]
    if not publication.authors_complete:
        authors.append("others")
    fields = [
        Field("title", "{" + _escape(publication.title) + "}"),
        Field("author", " and ".join(authors)),
    ]
    venue = publication.venue.name if publication.venue else publication.venue_detail
    if venue:
        key = "journal" if publication.kind == "journal_article" else "booktitle"
        if publication.kind in ("preprint", "other", "software"):
            key = "howpublished"
        fields.append(Field(key, _escape(venue)))
    fields.append(Field("year", str(publication.year)))
    for name in ("volume", "number", "pages"):
        value = getattr(publication, name)
        if value:
            fields.append(Field(name, value.replace("–", "--")))
    if publication.doi:
        fields.append(Field("doi", publication.doi))
    if publication.arxiv_id:
        fields.append(Field("eprint", publication.arxiv_id))
        fields.append(Field("archivePrefix", "arXiv"))
    if publication.status != "published":
        fields.append(Field("note", publication.get_status_display()))
    return Entry(
        ENTRY_TYPES.get(publication.kind, "misc"), citation_key(publication), fields
    )


def to_bibtex(publication) -> str:
    """One publication as BibTeX: the source's entry where kept, else built."""
    if publication.bibtex.strip():
        return publication.bibtex.strip() + "\n"
    library = bibtexparser.Library()
    library.add(build_entry(publication))
    return bibtexparser.write_string(library).strip() + "\n"
