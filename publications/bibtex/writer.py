"""A publication as one BibTeX entry, for its page, the API and the exports.

The entry a source gave is kept and handed back under the work's key on this site;
any other is built from the record. Entries are written as plain text, as
bibtexparser writes them (a tab before each field, every value but a month macro in
braces), without loading it: every page that lists papers writes entries, and
bibtexparser brings pylatexenc with it.
"""

import re

from publications.bibtex.fields import MONTH_MACROS, is_public
from publications.bibtex.names import name_parts
from publications.keys import key_for

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
# What TeX would read as markup, written so that it decodes back to the same text:
# specials escaped, and a brace pair between the characters of a ligature (--, ``).
_TEX_ESCAPES = {
    "\\": r"\textbackslash{}",
    "~": r"\textasciitilde{}",
    **{char: "\\" + char for char in "&%$#_{}"},
    **{char: char + "{}" for char in "-`'"},
}
_TEX_SPECIAL = re.compile(r"[-`'](?=[-`'])|[&%$#_{}\\~]")
_ENTRY_KEY = re.compile(r"^(\s*@\s*\w+\s*[{(]\s*)([^,\s]*)")
# Every field of an entry follows a comma: a name, `=`, then its value's first
# characters. It also finds `a=b` inside a value; that costs a closer look only.
_FIELD_HEAD = re.compile(r",\s*([^\s=,{}()\"#]+)\s*=\s*([^,\n]{0,12})")


def to_bibtex(publication, key: str = "") -> str:
    """One publication as BibTeX: the source's entry where kept (under the work's
    key on this site), else built."""
    key = key or key_for(publication)
    text = public_entry(publication.bibtex.strip())
    if text:
        return _ENTRY_KEY.sub(lambda m: m.group(1) + key, text, count=1) + "\n"
    # A work under review has appeared nowhere: @unpublished, whose note says where
    # it is reviewed, rather than an entry that would cite it as in proceedings.
    entry_type = (
        "unpublished"
        if publication.under_review
        else ENTRY_TYPES.get(publication.kind, "misc")
    )
    fields = ",\n".join(f"\t{name} = {value}" for name, value in _fields(publication))
    return f"@{entry_type}{{{key},\n{fields}\n}}\n"


def public_entry(text: str) -> str:
    """A kept entry without its private fields (`fields.is_public`), whatever was
    stored; "" when it cannot be read, so that the record's own entry is built."""
    if all(is_public(m.group(1), m.group(2)) for m in _FIELD_HEAD.finditer(text)):
        return text
    # Imported here, and only for the rare entry that needs it: bibtexparser
    # brings pylatexenc, which a page listing papers has no use for.
    import bibtexparser
    from bibtexparser.model import Entry

    blocks = bibtexparser.parse_string(text, parse_stack=[]).blocks
    if len(blocks) != 1 or not isinstance(blocks[0], Entry):
        return ""
    entry = blocks[0]
    fields = ",\n".join(
        f"\t{f.key} = {f.value}"
        for f in entry.fields
        if isinstance(f.value, str) and is_public(f.key, f.value)
    )
    return f"@{entry.entry_type}{{{entry.key},\n{fields}\n}}"


def paper_url(publication) -> str:
    """The first paper link of a publication, else its first link of any kind."""
    links = [link for link in publication.links.all() if link.url]
    for link in links:
        if link.kind == "paper":
            return link.url
    return links[0].url if links else ""


def _fields(publication) -> list[tuple[str, str]]:
    """The built entry's fields, each value as written (braced, or a month macro)."""
    fields = [("title", "{" + _escape(publication.title) + "}")]
    authors = [_bibtex_name(a) for a in publication.ordered_authors]
    if authors and not publication.authors_complete:
        authors.append("others")
    if authors:
        fields.append(("author", " and ".join(authors)))
    # No venue while the sources disagree on it: the note names each statement.
    venue = publication.cited_venue
    if venue:
        key = "journal" if publication.kind == "journal_article" else "booktitle"
        if publication.kind in ("preprint", "other", "software"):
            key = "howpublished"
        fields.append((key, _escape(venue)))
    # No year field for an undated work or one under review: BibTeX's styles print
    # it as "n.d.".
    year = publication.cited_year
    if year is not None:
        fields.append(("year", str(year)))
    if year is not None and publication.month:
        fields.append(("month", MONTH_MACROS[publication.month - 1]))
    for name in ("volume", "number", "pages"):
        value = getattr(publication, name)
        if value:
            fields.append((name, value.replace("–", "--")))
    if publication.doi:
        fields.append(("doi", publication.doi))
    if publication.arxiv_id:
        fields.append(("eprint", publication.arxiv_id))
        fields.append(("archivePrefix", "arXiv"))
    url = paper_url(publication)
    if url:
        fields.append(("url", url))
    notes = [
        publication.status_note,
        publication.venue_conflict_note,
        publication.author_order_note,
    ]
    if publication.working_title:
        notes.append("Working title")
    if any(notes):
        fields.append(("note", _escape(". ".join(n for n in notes if n))))
    # The month is a macro (`jul`, which styles print in their language), not text.
    return [(n, v if n == "month" else "{" + v + "}") for n, v in fields]


def _escape(value: str) -> str:
    return _TEX_SPECIAL.sub(lambda match: _TEX_ESCAPES[match.group()], value)


def _bibtex_name(authorship) -> str:
    given, family, suffix = name_parts(authorship.name, authorship.family_name)
    if not given or re.search(r",|\band\b", authorship.name, re.I):
        # One braced group: BibTeX must not split an organisation or a mononym.
        return "{" + _escape(" ".join(authorship.name.split())) + "}"
    parts = [_escape(family), _escape(suffix), _escape(given)]
    return ", ".join(part for part in parts if part)
