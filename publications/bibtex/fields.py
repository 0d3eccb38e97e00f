"""What an entry's fields mean for a publication record: kind, status, venue, dates,
identifiers and a title where the entry has none.

Reads the plain `entries.ParsedEntry` records; the months are shared with the
writer (`jul`) and the parser (the month macros every BibTeX style defines).
"""

import re
from dataclasses import dataclass

from publications.bibtex.entries import ParsedEntry

MONTH_MACROS = ("jan feb mar apr may jun jul aug sep oct nov dec").split()
MONTH_NAMES = dict(
    zip(
        MONTH_MACROS,
        "January February March April May June July August September October "
        "November December".split(),
        strict=True,
    )
)
_ARXIV_ID = r"(\d{4}\.\d{4,5}|[a-z][a-z\-]*(?:\.[A-Z]{2})?/\d{7})(?:v\d+)?"
_ARXIV_IN_TEXT = re.compile(
    r"(?:arxiv(?:\.org/(?:abs|pdf))?[:/\s]*|abs/)" + _ARXIV_ID, re.I
)
_ARXIV_BARE = re.compile(r"^(?:arxiv:)?" + _ARXIV_ID + "$", re.I)
_DOI = re.compile(r"(10\.\d{4,9}/\S+)")
_YEAR = re.compile(r"(?<!\d)(\d{4})(?!\d)")
_WORKSHOP = re.compile(r"\bworkshops?\b", re.I)
_PREPRINT_VENUE = re.compile(r"^\s*(arxiv|corr)\b", re.I)
_STATUS_WORDS = [
    (re.compile(r"\b(accepted|to appear|in press|forthcoming)\b", re.I), "accepted"),
    (re.compile(r"\b(under review|submitted|in submission)\b", re.I), "under_review"),
    (re.compile(r"\bpreprint\b", re.I), "preprint"),
]
_KINDS = {
    "inproceedings": "conference_paper",
    "conference": "conference_paper",
    "article": "journal_article",
    "techreport": "technical_report",
    "report": "technical_report",
    "phdthesis": "thesis",
    "mastersthesis": "thesis",
    "thesis": "thesis",
    "software": "software",
    "softwareversion": "software",
    "codefragment": "software",
}
CONTAINER_TYPES = {"proceedings", "mvproceedings", "book", "mvbook", "collection"}

# The fields a kept entry may show. An allow-list, because reference managers add
# fields of their own that are notes to self or point into one person's disk:
# `file` and `bdsk-file-N` (a local path or alias), `annote`, `annotation`,
# `comment`, `review` (reading notes), `owner`, `groups`, `mendeley-tags`,
# `mendeley-groups` (the owner's library), `timestamp`, `date-added`,
# `date-modified`, `read`, `rating`, `printed`, `priority`, `qualityassured` (their
# reading habits). Those are kept only when staff choose to, and never shown.
# `abstract`, `keywords` and `note` are printed by citation styles and written for
# readers, so they are public; so are the work's ids in public indexes (PubMed,
# Google Scholar, MathSciNet, zbMATH, WorldCat).
PUBLIC_FIELDS = frozenset(
    """
    abstract addendum address annotator archiveprefix author bookauthor booksubtitle
    booktitle booktitleaddon chapter commentator crossref date doi edition editor
    editora editorb editorc editortype eid eprint eprintclass eprinttype event
    eventdate eventtitle eventtitleaddon foreword howpublished institution isbn
    isrn issn issue issuesubtitle issuetitle journal journalsubtitle journaltitle
    key keywords language location mainsubtitle maintitle maintitleaddon month
    note number organization origdate origlanguage origlocation origpublisher
    pages pagetotal part primaryclass publisher pubstate school series shorttitle
    subtitle title titleaddon translator type url urldate venue version volume
    volumes year
    arxivid google_scholar_id lccn mrnumber oclc pmcid pmid zblnumber
    """.split()
)
# A link is public only when it is one on the web: BibDesk's `bdsk-url-N`, a `url`
# or a `pdf` may also hold a path or file:// address on the owner's computer.
_URL_FIELD = re.compile(r"^(url|pdf|bdsk-url-\d+)$")
_WEB_ADDRESS = re.compile(r"^[\s{\"]*((https?|ftp)://|www\.)", re.I)


def is_public(name: str, value: str) -> bool:
    """Whether a field of a kept entry may be shown (`value` as written, or its
    first characters)."""
    name = name.lower()
    if _URL_FIELD.match(name):
        return bool(_WEB_ADDRESS.match(value))
    return name in PUBLIC_FIELDS


@dataclass
class Bibliographic:
    """What a publication record takes from one entry."""

    title: str
    title_from: str  # "" when the entry has a title, else the field it came from
    year: int | None  # None: the entry gives no year (printed "n.d.")
    month: int | None
    kind: str
    status: str
    venue: str  # a venue's name as the entry gives it, or ""
    venue_kind: str
    venue_detail: str  # may name an existing venue when `venue` is blank
    doi: str
    arxiv_id: str
    url: str
    pages: str
    volume: str
    number: str


def bibliographic(entry: ParsedEntry) -> Bibliographic:
    """Read the fields a publication record needs; unknown fields are ignored."""
    f = entry.fields
    year, month = _year_month(entry)
    doi = _doi(f)
    arxiv_id = _arxiv_id(f, doi)
    kind = _KINDS.get(entry.entry_type, "other")
    journal = f.get("journal") or f.get("journaltitle", "")
    booktitle = f.get("booktitle", "")
    howpublished = f.get("howpublished", "")
    if howpublished.lower().startswith(("http://", "https://", "www.")):
        howpublished = ""
    venue, venue_kind, detail = "", "conference", ""
    if entry.entry_type == "article":
        venue, venue_kind = journal, "journal"
    elif entry.entry_type in ("inproceedings", "conference"):
        venue = booktitle or f.get("eventtitle", "")
        if _WORKSHOP.search(venue):
            kind, venue_kind = "workshop_paper", "workshop"
    elif entry.entry_type in ("phdthesis", "mastersthesis", "thesis"):
        detail = f.get("school") or f.get("institution", "")
    elif entry.entry_type in ("techreport", "report"):
        detail = f.get("institution", "")
    elif entry.entry_type in ("incollection", "inbook"):
        detail = booktitle or f.get("publisher", "")
    else:
        # "howpublished" is free text ("Blog post", "GitHub"): a venue only when
        # it names one that exists, never a reason to create one.
        venue, venue_kind, detail = journal or booktitle, "other", howpublished
    if arxiv_id and (
        not venue or _PREPRINT_VENUE.match(venue) or entry.entry_type in _PREPRINTS
    ):
        kind, venue, venue_kind = "preprint", "arXiv", "preprint"
    elif _PREPRINT_VENUE.match(venue):
        kind, venue, venue_kind = "preprint", "arXiv", "preprint"
    status = "preprint" if kind == "preprint" else "published"
    for pattern, value in _STATUS_WORDS:
        if pattern.search(f.get("note", "") + " " + f.get("pubstate", "")):
            status = value
            break
    url = f.get("url", "") or _url_in(howpublished)
    title, title_from = _title(entry)
    return Bibliographic(
        title=title,
        title_from=title_from,
        year=year,
        month=month,
        kind=kind,
        status=status,
        venue=venue,
        venue_kind=venue_kind,
        venue_detail=detail,
        doi=doi,
        arxiv_id=arxiv_id,
        url=url,
        pages=f.get("pages", ""),
        # CoRR gives the arXiv id as its volume ("abs/2301.01234").
        volume="" if f.get("volume", "").startswith("abs/") else f.get("volume", ""),
        number=f.get("number") or f.get("issue", ""),
    )


_PREPRINTS = {"misc", "online", "unpublished", "electronic"}
# What stands in for the title of an entry without one (valid BibTeX for @misc,
# @booklet…), most telling first; then its journal issue, then its key.
_TITLE_STAND_INS = ("booktitle", "howpublished", "note", "key")
_STAND_IN_LENGTH = 200


def _title(entry: ParsedEntry) -> tuple[str, str]:
    """The entry's title, else what stands in for it and the field it came from."""
    f = entry.fields
    if f.get("title", "").strip():
        return f["title"], ""
    for name in _TITLE_STAND_INS:
        if f.get(name, "").strip():
            return _shortened(f[name]), name
    journal = f.get("journal") or f.get("journaltitle", "")
    if journal:
        issue = f.get("volume", "") + (f"({f['number']})" if f.get("number") else "")
        pages = f.get("pages", "")
        return ", ".join(p for p in (f"{journal} {issue}".strip(), pages) if p), (
            "journal"
        )
    return entry.key, "citation key"


def _shortened(text: str) -> str:
    if len(text) <= _STAND_IN_LENGTH:
        return text
    return text[:_STAND_IN_LENGTH].rsplit(" ", 1)[0] + "…"


def _year_month(entry: ParsedEntry) -> tuple[int | None, int | None]:
    year_text = entry.fields.get("year", "")
    date = entry.fields.get("date", "")
    match = _YEAR.search(year_text) or _YEAR.search(date)
    year = int(match.group(1)) if match else None
    month = _month(entry.fields.get("month", ""))
    if month is None and not entry.fields.get("month"):
        iso = re.match(r"^\d{4}-(\d{2})", date)
        month = int(iso.group(1)) if iso and 1 <= int(iso.group(1)) <= 12 else None
    elif month is None:
        entry.warnings.append(
            f"line {entry.line}, {entry.key}: month {entry.fields['month']!r} not "
            "understood, left out"
        )
    return year, month


def _month(text: str) -> int | None:
    """A month from "7", "jul", "July", "6 June" or "Jul.--Aug." (the first one)."""
    text = text.strip().lower()
    if text.isdigit():
        return int(text) if 1 <= int(text) <= 12 else None
    for word in re.findall(r"[^\W\d_]+", text):
        name = MONTH_NAMES.get(word[:3], "")
        if len(word) >= 3 and name.lower().startswith(word):
            return MONTH_MACROS.index(word[:3]) + 1
    return None


def _doi(fields: dict[str, str]) -> str:
    url = fields.get("url", "")
    match = _DOI.search(fields.get("doi", "")) or (
        "doi.org/" in url and _DOI.search(url)
    )
    return match.group(1).rstrip(".") if match else ""


def _arxiv_id(fields: dict[str, str], doi: str) -> str:
    eprint = fields.get("eprint", "")
    archive = (fields.get("archiveprefix") or fields.get("eprinttype", "")).lower()
    match = _ARXIV_BARE.match(eprint)
    if match and (archive == "arxiv" or eprint.lower().startswith("arxiv:")):
        return match.group(1)
    if doi.lower().startswith("10.48550/arxiv."):
        return doi[len("10.48550/arxiv.") :]
    for name in ("url", "journal", "volume", "howpublished", "note", "eprint"):
        match = _ARXIV_IN_TEXT.search(fields.get(name, ""))
        if match:
            return match.group(1)
    return ""


def _url_in(text: str) -> str:
    match = re.search(r"https?://\S+", text)
    return match.group(0) if match else ""


def venue_name(text: str, *, journal: bool = False) -> tuple[str, str]:
    """A venue's name and acronym from a booktitle: no "Proceedings of", years…"""
    acronym = ""
    for match in re.finditer(r"\(([^()]*)\)", text):
        candidate = re.sub(r"[\s'’]*\d{2,4}$", "", match.group(1).strip())
        if (
            re.fullmatch(r"[A-Za-z][\w\-&/+.]*", candidate)
            and sum(c.isupper() for c in candidate) >= 2
        ):
            acronym = candidate
    name = re.sub(r"\([^()]*\)", " ", text)
    if not journal:
        name = re.sub(
            r"^\s*(in\s+)?(proc\.|proceedings)\s+of\s+(the\s+)?", "", name, flags=re.I
        )
        name = _ORDINALS.sub(" ", name)
        name = re.sub(r"(?<![\w/])(19|20)\d\d(?![\w/])|'\d\d\b", " ", name)
        name = re.sub(r"\s\d+\s*$", " ", name)
    name = " ".join(name.split()).strip(" ,.:;-–")
    name = re.sub(r"^the\s+", "", name, flags=re.I) if not journal else name
    return (name or " ".join(text.split())), acronym


_ORDINALS = re.compile(
    r"\b(\d+(st|nd|rd|th)|first|second|third|fourth|fifth|sixth|seventh|eighth|"
    r"ninth|tenth|eleventh|twelfth|thirteenth|fourteenth|fifteenth|sixteenth|"
    r"seventeenth|eighteenth|nineteenth|twentieth|thirtieth|fortieth|fiftieth|"
    r"(twenty|thirty|forty|fifty)[- ](first|second|third|fourth|fifth|sixth|"
    r"seventh|eighth|ninth))\b",
    re.I,
)
