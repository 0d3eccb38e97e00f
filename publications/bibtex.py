"""BibTeX in and out: parse a file into plain records, build an entry for a record.

Parsing is bibtexparser 2's splitter and middlewares, plus three middlewares it lacks
(macro concatenation with `#`, `crossref` inheritance, a faster TeX decoder built on
pylatexenc, the decoder bibtexparser itself uses). Nothing here touches the database.
"""

import functools
import re
import unicodedata
from dataclasses import dataclass, field

import bibtexparser
from bibtexparser import middlewares
from bibtexparser.exceptions import BlockAbortedException
from bibtexparser.library import Library
from bibtexparser.middlewares.middleware import LibraryMiddleware
from bibtexparser.middlewares.names import (
    InvalidNameError,
    parse_single_name_into_parts,
    split_multiple_persons_names,
)
from bibtexparser.model import (
    Block,
    DuplicateBlockKeyBlock,
    DuplicateFieldKeyBlock,
    Entry,
    Field,
    ParsingFailedBlock,
    String,
)
from pylatexenc import latexwalker, macrospec
from pylatexenc.latex2text import (
    LatexNodes2Text,
    MacroTextSpec,
    get_default_latex_context_db,
)

from core.bulk import without_cycle_collection

# -- writing -----------------------------------------------------------------------

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
MONTH_MACROS = ("jan feb mar apr may jun jul aug sep oct nov dec").split()
# What TeX would read as markup, written so that it decodes back to the same text:
# specials escaped, and a brace pair between the characters of a ligature (--, ``).
_TEX_ESCAPES = {
    "\\": r"\textbackslash{}",
    "~": r"\textasciitilde{}",
    **{char: "\\" + char for char in "&%$#_{}"},
    **{char: char + "{}" for char in "-`'"},
}
_TEX_SPECIAL = re.compile(r"[-`'](?=[-`'])|[&%$#_{}\\~]")


def citation_key(publication) -> str:
    """The work's one key on the site (publications.keys)."""
    # Imported here: publications.keys reads the models, which import this module.
    from publications.keys import key_for

    return key_for(publication)


def name_parts(name: str, family_name: str = "") -> tuple[str, str, str]:
    """(given, family, suffix) of a printed name; given is blank for an organisation."""
    name = " ".join(name.split())
    if family_name and family_name in name:
        start = name.rfind(family_name)
        given = name[:start].strip()
        suffix = name[start + len(family_name) :].strip(" ,")
        return given, family_name, suffix
    words = name.split()
    if len(words) < 2:
        return "", name, ""
    return " ".join(words[:-1]), words[-1], ""


def _escape(value: str) -> str:
    return _TEX_SPECIAL.sub(lambda match: _TEX_ESCAPES[match.group()], value)


def _bibtex_name(authorship) -> str:
    given, family, suffix = name_parts(authorship.name, authorship.family_name)
    if not given or re.search(r",|\band\b", authorship.name, re.I):
        # One braced group: BibTeX must not split an organisation or a mononym.
        return "{" + _escape(" ".join(authorship.name.split())) + "}"
    parts = [_escape(family), _escape(suffix), _escape(given)]
    return ", ".join(part for part in parts if part)


def paper_url(publication) -> str:
    """The first paper link of a publication, else its first link of any kind."""
    links = [link for link in publication.links.all() if link.url]
    for link in links:
        if link.kind == "paper":
            return link.url
    return links[0].url if links else ""


def build_entry(publication, cite_key: str = "") -> Entry:
    authors = [_bibtex_name(a) for a in publication.ordered_authors]
    if authors and not publication.authors_complete:
        authors.append("others")
    fields = [Field("title", "{" + _escape(publication.title) + "}")]
    if authors:
        fields.append(Field("author", " and ".join(authors)))
    venue = publication.venue.name if publication.venue else publication.venue_detail
    if venue:
        key = "journal" if publication.kind == "journal_article" else "booktitle"
        if publication.kind in ("preprint", "other", "software"):
            key = "howpublished"
        fields.append(Field(key, _escape(venue)))
    # No year field for an undated work: BibTeX's styles print it as "n.d.".
    if publication.year is not None:
        fields.append(Field("year", str(publication.year)))
    if publication.year is not None and publication.month:
        month = Field("month", MONTH_MACROS[publication.month - 1])
        month.enclosing = "no-enclosing"  # a month macro, not the text "jul"
        fields.append(month)
    for name in ("volume", "number", "pages"):
        value = getattr(publication, name)
        if value:
            fields.append(Field(name, value.replace("–", "--")))
    if publication.doi:
        fields.append(Field("doi", publication.doi))
    if publication.arxiv_id:
        fields.append(Field("eprint", publication.arxiv_id))
        fields.append(Field("archivePrefix", "arXiv"))
    url = paper_url(publication)
    if url:
        fields.append(Field("url", url))
    notes = [publication.status_note, publication.author_order_note]
    if publication.working_title:
        notes.append("Working title")
    if any(notes):
        fields.append(Field("note", _escape(". ".join(n for n in notes if n))))
    return Entry(
        ENTRY_TYPES.get(publication.kind, "misc"),
        cite_key or citation_key(publication),
        fields,
    )


def write_entries(entries: list[Entry]) -> str:
    library = Library()
    library.add(entries)
    return bibtexparser.write_string(library)


_ENTRY_KEY = re.compile(r"^(\s*@\s*\w+\s*[{(]\s*)([^,\s]*)")


def to_bibtex(publication, key: str = "") -> str:
    """One publication as BibTeX: the source's entry where kept (under the work's
    key on this site), else built."""
    key = key or citation_key(publication)
    if publication.bibtex.strip():
        text = publication.bibtex.strip()
        return _ENTRY_KEY.sub(lambda m: m.group(1) + key, text, count=1) + "\n"
    return write_entries([build_entry(publication, key)]).strip() + "\n"


# -- reading -----------------------------------------------------------------------

_MONTH_NAMES = dict(
    zip(
        MONTH_MACROS,
        "January February March April May June July August September October "
        "November December".split(),
        strict=True,
    )
)
# Macros that only steer sorting (`{\noopsort{a}}Zheng`): their argument is dropped.
_SORT_MACROS = ("noopsort", "sortnoop", "SortNoop", "nosort", "NOOP", "oopsort")
# Fields that hold identifiers or addresses, never TeX to decode.
_VERBATIM_FIELDS = {"url", "doi", "eprint", "file", "pdf", "arxivid", "isbn", "issn"}
# Fields an import reads as text (`bibliographic`); the others stay as written in
# the kept BibTeX, so decoding them (abstracts, keywords…) would be time lost.
_TEXT_FIELDS = {
    "title", "journal", "journaltitle", "booktitle", "eventtitle", "howpublished",
    "school", "institution", "publisher", "note", "pubstate", "key", "year", "date",
    "month", "volume", "number", "issue", "pages", "archiveprefix", "eprinttype",
}  # fmt: skip
_VALUE_MARKS = re.compile(r'(?<!\\)[{}"#]')
_SURROGATE = re.compile("[\udc80-\udcff]")
_ENTRY_HEAD = re.compile(r"@\s*(\w+)\s*[{(]\s*([^,\s{}()]*)")


@dataclass(frozen=True)
class Author:
    name: str  # as printed, given names first
    family: str  # von part and last name
    given: str
    family_name: str  # what Authorship.family_name stores: blank for the last word


@dataclass
class ParsedEntry:
    key: str
    line: int
    entry_type: str
    fields: dict[str, str]
    authors: list[Author]
    authors_complete: bool
    text: str  # the BibTeX to keep: verbatim, or resolved when it used macros
    warnings: list[str] = field(default_factory=list)


@dataclass
class EntryProblem:
    """An entry that cannot be read or imported, and why."""

    key: str
    line: int
    reason: str

    def __str__(self) -> str:
        where = f"line {self.line}" if self.line else "file"
        return f"{where}, {self.key or 'unnamed entry'}: {self.reason}"


@dataclass
class ParseResult:
    entries: list[ParsedEntry]
    errors: list[EntryProblem]
    warnings: list[str]
    crossref_parents: set[str]


def decode_bytes(data: bytes) -> str:
    """Text of an uploaded file: UTF-8, with any other bytes kept for error reports."""
    # surrogateescape keeps undecodable bytes as lone surrogates, so the parser can
    # name the entry holding them instead of rejecting the whole file.
    return data.decode("utf-8", errors="surrogateescape").removeprefix("\ufeff")


@without_cycle_collection()
def parse_bibtex(text: str) -> ParseResult:
    """Split, expand and decode a BibTeX file; report what cannot be read."""
    resolve = _Resolve()
    # One middleware, and TeX decoded as entries are converted: on a real file a
    # pass over every field of every entry cost more than the work it did.
    library = bibtexparser.parse_string(text, parse_stack=[resolve])
    result = ParseResult([], [], [], resolve.parents)
    first_lines = {}
    # Most files are clean UTF-8: one search spares one per entry and field.
    bad_bytes = _SURROGATE.search(text) is not None
    for block in library.blocks:
        if isinstance(block, Entry):
            first_lines.setdefault(block.key, _line(block))
            _convert(block, result, bad_bytes=bad_bytes)
        elif isinstance(block, String) and _SURROGATE.search(block.raw or ""):
            result.warnings.append(
                f"line {_line(block)}: macro `{block.key}` holds bytes that are not "
                "UTF-8"
            )
        elif isinstance(block, DuplicateBlockKeyBlock) and isinstance(
            block.ignore_error_block, String
        ):
            result.warnings.append(
                f"line {_line(block)}: macro `{block.key}` is defined again; "
                "the later value is used"
            )
        elif isinstance(block, ParsingFailedBlock):
            result.errors.append(_failure(block, first_lines))
    result.errors.sort(key=lambda problem: problem.line)
    return result


def _line(block: Block) -> int:
    # The splitter counts from zero.
    return (block.start_line or 0) + 1


def _failure(block: ParsingFailedBlock, first_lines: dict[str, int]) -> EntryProblem:
    head = _ENTRY_HEAD.match((block.raw or "").lstrip())
    key = head.group(2) if head else ""
    line = _line(block)
    error = block.error
    if isinstance(block, DuplicateBlockKeyBlock):
        key = block.key
        first = first_lines.get(key)
        where = f" (first used on line {first})" if first else ""
        return EntryProblem(key, line, f"duplicate citation key{where}")
    if isinstance(block, DuplicateFieldKeyBlock):
        names = ", ".join(f"`{name}`" for name in sorted(block.duplicate_keys))
        return EntryProblem(key, line, f"field {names} given twice")
    if isinstance(error, BlockAbortedException):
        reason = error.abort_reason.strip()
        if "end of file" in reason:
            reason = "the entry is never closed (the file ends inside it)"
        return EntryProblem(key, line, f"malformed entry: {reason}")
    return EntryProblem(key, line, f"malformed entry: {error}")


def _convert(entry: Entry, result: ParseResult, *, bad_bytes: bool) -> None:
    """Decode an entry's TeX (text fields and names; URLs and identifiers stay as
    given) and add it to `result`, or its problem to the errors."""
    line = _line(entry)
    fields, authors = {}, []
    for f in entry.fields:
        key, value = f.key, f.value  # properties: read once
        if not isinstance(value, str):
            continue
        if key in _TEXT_FIELDS:
            value = decode_latex(value)
        elif key == "author":
            try:
                authors = [_name(n) for n in split_multiple_persons_names(value)]
            except InvalidNameError as exc:
                result.errors.append(
                    EntryProblem(entry.key, line, f"author {exc.name!r}: {exc.reason}")
                )
                return
        elif key in _VERBATIM_FIELDS:
            value = _unescape_verbatim(value)
        fields[key] = value
    bad = bad_bytes and _SURROGATE.search(entry.raw or "")
    if bad_bytes and (bad or any(_SURROGATE.search(v) for v in fields.values())):
        offset = (entry.raw or "")[: bad.start()].count("\n") if bad else 0
        result.errors.append(
            EntryProblem(
                entry.key,
                line,
                f"holds bytes that are not UTF-8 (line {line + offset}); "
                "save the file as UTF-8",
            )
        )
        return
    meta = entry.parser_metadata
    warnings = [f"line {line}, {entry.key}: {w}" for w in meta.get("warnings", [])]
    result.entries.append(
        ParsedEntry(
            key=entry.key,
            line=line,
            entry_type=entry.entry_type.lower(),
            fields=fields,
            authors=[a for a in authors if a.name.lower() != "others"],
            authors_complete=not any(a.name.lower() == "others" for a in authors),
            text=meta.get("resolved_text") or (entry.raw or "").strip(),
            warnings=warnings,
        )
    )


class _Resolve(LibraryMiddleware):
    """Expand `@string` macros and `#` concatenation (bibtexparser resolves neither),
    strip each value's braces or quotes, and fill an entry's missing fields from the
    entry its `crossref` names."""

    def __init__(self) -> None:
        super().__init__(allow_inplace_modification=True)
        self.parents: set[str] = set()

    def transform(self, library: Library) -> Library:
        macros = dict(_MONTH_NAMES)
        # What each expression reads as while no macro changes: real files give
        # the same few (`j-TUGboat`, `jul # "\slash" # aug`) in thousands of entries.
        expressions: dict[str, tuple[str, bool, list[str]]] = {}
        blocks: list[Block] = []
        children: list[Entry] = []
        for block in library.blocks:
            string = block
            if isinstance(block, DuplicateBlockKeyBlock):
                string = block.ignore_error_block
            if isinstance(string, String):
                # A redefined macro is legal BibTeX: the later value wins.
                value, _, _ = _evaluate(string.value, macros)
                macros[string.key.lower()] = value
                expressions.clear()
            if isinstance(block, Entry):
                block = self._expand(block, macros, expressions, children)
            blocks.append(block)
        library = Library(blocks=blocks, fail_on_duplicate_key=False)
        entries = {entry.key.lower(): entry for entry in library.entries}
        done: set[str] = set()
        for entry in children:
            self._inherit(entry, entries, done, set())
        for entry in library.entries:
            if entry.parser_metadata.get("resolved"):
                entry.parser_metadata["resolved_text"] = _resolved_text(entry)
        return library

    def _expand(
        self,
        entry: Entry,
        macros: dict[str, str],
        expressions: dict[str, tuple[str, bool, list[str]]],
        children: list[Entry],
    ) -> Block:
        keys = [f.key.lower() for f in entry.fields]
        if len(set(keys)) < len(keys):
            return DuplicateFieldKeyBlock({k for k in keys if keys.count(k) > 1}, entry)
        if "crossref" in keys:
            children.append(entry)
        warnings = entry.parser_metadata.setdefault("warnings", [])
        for f, key in zip(entry.fields, keys, strict=True):
            f.key = key  # BibTeX field names ignore case
            value = f.value
            if value.isdigit():
                continue
            if value[:1] in ("{", '"') and "#" not in value:
                # The common case, one literal: bibtexparser's own reading of its
                # braces or quotes.
                f.value, _ = _strip_enclosing(value)
                continue
            if value not in expressions:
                text, used, unknown = _evaluate(value, macros)
                expressions[value] = (text, bool(used - _MONTH_NAMES.keys()), unknown)
            text, resolved, unknown = expressions[value]
            f.value = text
            if resolved:
                entry.parser_metadata["resolved"] = True
            for name in unknown:
                warnings.append(f"undefined macro `{name}` in `{key}`, kept as text")
        return entry

    def _inherit(self, entry: Entry, entries: dict, done: set, chain: set) -> None:
        key = entry.key.lower()
        if key in done or key in chain:
            return
        fields = entry.fields_dict
        parent_key = fields.get("crossref")
        if parent_key is not None:
            parent = entries.get(str(parent_key.value).strip().lower())
            if parent is None:
                entry.parser_metadata.setdefault("warnings", []).append(
                    f"crossref `{parent_key.value}` is not in the file"
                )
            else:
                self.parents.add(parent.key.lower())
                self._inherit(parent, entries, done, chain | {key})
                inherited = dict(parent.fields_dict)
                # The parent's title names the proceedings or book the child is in.
                if "booktitle" not in inherited and "title" in inherited:
                    inherited["booktitle"] = inherited["title"]
                for name, value in inherited.items():
                    if name not in fields and name not in ("title", "crossref"):
                        entry.set_field(Field(name, value.value))
                entry.parser_metadata["resolved"] = True
        done.add(key)


_strip_enclosing = middlewares.RemoveEnclosingMiddleware._strip_enclosing


def _evaluate(value: str, macros: dict[str, str]) -> tuple[str, set[str], list[str]]:
    """The text of a value expression: literals and macros joined by `#`."""
    pieces, depth, quoted, start = [], 0, False, 0
    # Most values that reach here are one macro's name: nothing to split.
    marks = _VALUE_MARKS.finditer(value) if "#" in value else ()
    for mark in marks:
        char = mark.group()
        if char == "{":
            depth += 1
        elif char == "}":
            depth -= 1
        elif char == '"' and depth == 0:
            quoted = not quoted
        elif char == "#" and depth == 0 and not quoted:
            pieces.append(value[start : mark.start()].strip())
            start = mark.end()
    pieces.append(value[start:].strip())
    text, used, unknown = [], set(), []
    for piece in pieces:
        if len(piece) >= 2 and piece[0] + piece[-1] in ("{}", '""'):
            text.append(piece[1:-1])
        elif piece.isdigit():
            text.append(piece)
        elif piece.lower() in macros:
            used.add(piece.lower())
            text.append(macros[piece.lower()])
        elif piece:
            unknown.append(piece)
            text.append(piece)
    return "".join(text), used, unknown


def _resolved_text(entry: Entry) -> str:
    """The entry written self-contained: macros expanded, crossref fields merged."""
    # As bibtexparser writes it, without its writer: that deep-copies the library
    # for every entry, and most entries of a real file use a macro.
    fields = ",\n".join(
        f"\t{f.key} = {{{f.value}}}" for f in entry.fields if f.key != "crossref"
    )
    return f"@{entry.entry_type}{{{entry.key},\n{fields}\n}}"


@functools.lru_cache(maxsize=65536)
def _name(name: str) -> Author:
    """One name of an author list, split the BibTeX way, then decoded."""
    parts = parse_single_name_into_parts(name)
    family = decode_latex(" ".join([*parts.von, *parts.last]))
    given = decode_latex(" ".join(parts.first))
    suffix = decode_latex(" ".join(parts.jr))
    printed = " ".join(part for part in (given, family, suffix) if part)
    last_word = printed.rsplit(" ", 1)[-1]
    return Author(printed, family, given, "" if family == last_word else family)


# Logos and commands of TeX's world that pylatexenc does not know, as their text;
# any other unknown command keeps its name (`_Text`), so that no word is lost.
_LOGOS = {
    "TeX": "TeX", "LaTeX": "LaTeX", "LaTeXe": "LaTeX2ε", "La": "La",
    "AllTeX": "(La)TeX", "BibTeX": "BibTeX", "slBibTeX": "BibTeX",
    "AmSTeX": "AMS-TeX", "AmSLaTeX": "AMS-LaTeX", "AMS": "AMS", "AmS": "AMS",
    "MF": "METAFONT", "METAFONT": "METAFONT", "slMF": "METAFONT", "MP": "MetaPost",
    "METAPOST": "MetaPost", "TUG": "TUG", "TUB": "TUGboat", "MTeX": "MTeX",
    "eTeX": "ε-TeX", "pdfTeX": "pdfTeX", "XeTeX": "XeTeX", "LuaTeX": "LuaTeX",
    "ConTeXt": "ConTeXt", "TeXLive": "TeX Live", "OMEGA": "Omega",
    "PS": "PostScript", "Dash": "—", "dash": "—", "bs": "\\",
    "thinspace": " ", "tubissue": "TUGboat",
}  # fmt: skip
# Font, size and spacing switches: what they change is not text.
_SWITCHES = (
    "tt", "it", "bf", "sl", "sf", "rm", "sc", "em", "ssf", "smc", "SMC", "slc",
    "manual", "relax", "normalfont", "small", "footnotesize", "large", "Large",
)  # fmt: skip
_JOINED = {*_SWITCHES, "bs"}
# Commands whose one braced argument is their text.
_ARGUMENT_IS_TEXT = ("acro", "hbox", "mbox", "smash", "llap", "rlap")
# TeX's own dimensions (`\kern-.15em`, `\raise.25ex`) are no arguments pylatexenc
# reads; `\char`\\` is a character given by its code (here a backslash).
_DIMENSION = re.compile(
    r"\\(?:kern|raise|lower|hskip|vskip)\s*-?\s*[\d.]+\s*"
    r"(?:em|ex|pt|bp|mm|cm|in|sp|pc|dd|cc|mu)"
)
_CHAR_CODE = re.compile(r"\\char\s*`\\?(.)")


def _char(match: re.Match) -> str:
    return r"\textbackslash{}" if match.group(1) == "\\" else "{" + match.group(1) + "}"


def _ordinal(node) -> str:
    number = _argument_text(node)
    if not number.isdigit():
        return number
    last = int(number) % 100
    suffix = "th" if 10 <= last <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(last % 10)
    return number + (suffix or "th")


def _argument_text(node) -> str:
    argument = node.nodeargd.argnlist[-1] if node.nodeargd else None
    return argument.latex_verbatim()[1:-1] if argument is not None else ""


class _Text(LatexNodes2Text):
    """pylatexenc's text, but an unknown command word gives its name, not nothing."""

    def macro_node_to_text(self, node) -> str:
        name = node.macroname
        if name.isalpha() and self.latex_context.get_macro_spec(name) is None:
            return name
        return super().macro_node_to_text(node)

    def _is_bare_macro_node(self, node) -> bool:
        # The space after a switch or `\bs` only ends the command's name.
        return super()._is_bare_macro_node(node) and node.macroname not in _JOINED


@functools.cache
def _decoder() -> tuple[LatexNodes2Text, object]:
    one_argument = [*_SORT_MACROS, *_ARGUMENT_IS_TEXT, "nth"]
    text_context = get_default_latex_context_db()
    text_context.add_context_category(
        "bibtex-import",
        prepend=True,
        macros=[
            MacroTextSpec("url", simplify_repl="%s"),
            MacroTextSpec("nth", simplify_repl=_ordinal),
            *(MacroTextSpec(name, discard=True) for name in _SORT_MACROS),
            *(MacroTextSpec(name, discard=True) for name in _SWITCHES),
            *(MacroTextSpec(name, discard=False) for name in _ARGUMENT_IS_TEXT),
            *(MacroTextSpec(name, simplify_repl=text) for name, text in _LOGOS.items()),
        ],
    )
    walker_context = latexwalker.get_default_latex_context_db()
    walker_context.add_context_category(
        "bibtex-import",
        prepend=True,
        macros=[macrospec.std_macro(name, False, 1) for name in one_argument],
    )
    decoder = _Text(
        latex_context=text_context,
        math_mode="text",
        keep_braced_groups=False,
        # The space after a command is kept: `\LaTeX and` means two words.
        strict_latex_spaces={
            "between-macro-and-chars": False,
            "between-latex-constructs": True,
            "after-comment": False,
            "in-equations": "based-on-source",
        },
    )
    return decoder, walker_context


@functools.lru_cache(maxsize=65536)
def decode_latex(value: str) -> str:
    """TeX markup as Unicode text: accents, escapes, dashes, logos; braces removed."""
    if "\\" not in value and "$" not in value:
        return _plain(value)
    # pylatexenc's time grows with the text it reads: it reads only the words that
    # hold TeX, and the same word (`\TeX`, `{\LaTeX}`) is decoded once per import.
    return " ".join(_decode_word(word) for word in _tex_words(_unwrap(value)))


def _plain(value: str) -> str:
    # What pylatexenc would do to text without TeX, without parsing it: skipping
    # the parser is what makes thousands of entries a second possible.
    # Ligatures first: `-{}-` is two hyphens, as TeX reads it.
    return " ".join(_plain_piece(value).replace("{", "").replace("}", "").split())


def _plain_piece(value: str) -> str:
    for tex, text in (("---", "—"), ("--", "–"), ("``", "“"), ("''", "”")):
        value = value.replace(tex, text)
    return value.replace("~", " ")


@functools.lru_cache(maxsize=65536)
def _decode_word(value: str) -> str:
    if "\\" not in value and "$" not in value:
        return _plain(value)
    # An unescaped % is a TeX comment, but in a .bib file it is meant literally.
    value = re.sub(r"(?<!\\)%", r"\\%", value)
    value = _CHAR_CODE.sub(_char, _DIMENSION.sub("", value))
    text = _simple_tex(value)
    if text is not None:
        return text
    decoder, walker_context = _decoder()
    try:
        text = decoder.latex_to_text(value, latex_context=walker_context)
    except Exception:  # pylatexenc is tolerant; keep the text if it ever gives up
        text = value
    return " ".join(text.split())


# Most words with TeX in a bibliography hold only logos, switches, escaped specials
# and accents: read through these tables they give what pylatexenc gives, without
# its parser (tests/publications/test_bibtex_decode.py holds the two to the same
# text). A word with anything else (math, `\\`, a command pylatexenc knows
# and these tables do not) goes to pylatexenc.
_LETTER = r"(?:\\[ij](?![A-Za-z])|[A-Za-z])"  # a letter, or a dotless i or j
_SIMPLE_TOKENS = re.compile(
    rf"\\(?P<accent>['\"`^~=.])\s*(?:\{{(?P<braced>{_LETTER})\}}|(?P<bare>{_LETTER}))"
    rf"|\\(?P<letter_accent>[vHcukr])"
    rf"(?:\{{(?P<lbraced>{_LETTER})\}}|\s+(?P<lbare>[A-Za-z]))"
    r"|\\(?P<name>[A-Za-z]+)(?P<space>\s*)"
    r"|\\(?P<char>.)"
    r"|(?P<brace>[{}])"
    r"|(?P<text>[^\\{}$]+)"
    r"|(?P<math>\$)",
    re.S,
)
# Ligatures and ties that pylatexenc reads as markup of their own.
_SPECIALS = ("--", "``", "''", "~", "!`", "?`")
_ACCENTED = ("braced", "bare", "lbraced", "lbare")
_COMBINING = {
    "'": "\u0301", "`": "\u0300", "^": "\u0302", '"': "\u0308", "~": "\u0303",
    "=": "\u0304", ".": "\u0307", "v": "\u030c", "H": "\u030b", "c": "\u0327",
    "u": "\u0306", "k": "\u0328", "r": "\u030a",
}  # fmt: skip
_LETTERS = {
    "i": "ı", "j": "ȷ", "l": "ł", "L": "Ł", "o": "ø", "O": "Ø", "ss": "ß",
    "ae": "æ", "AE": "Æ", "oe": "œ", "OE": "Œ", "aa": "å", "AA": "Å",
    "dots": "…", "textbackslash": "\\",
}  # fmt: skip
_ESCAPED = {
    "&": "&", "%": "%", "#": "#", "$": "$", "_": "_", "{": "{", "}": "}",
    " ": " ", "/": "", ",": " ", "-": "\xad",
}  # fmt: skip


def _simple_tex(value: str) -> str | None:
    """The text of a word of logos, switches, escapes and accents; None otherwise."""
    out: list[str] = []
    space_after_command = False
    for token in _SIMPLE_TOKENS.finditer(value):
        text, name, char = token.group("text", "name", "char")
        if space_after_command and text is not None and not text.startswith(_SPECIALS):
            out.append(" ")  # `\\TeX hax`: two words; before `{`, `\\`, `--` it goes
        space_after_command = False
        if text is not None:
            out.append(_plain_piece(text))
        elif name is not None:
            text = _command_text(name)
            if text is None or token.group("space").count("\n") > 1:
                return None  # unknown to the tables, or a paragraph break follows
            if name in _ARGUMENT_IS_TEXT and not value.startswith("{", token.end()):
                return None  # `\\hbox to 3in{…}`: what its argument is, TeX decides
            out.append(text)
            space_after_command = bool(token.group("space")) and name not in _JOINED
        elif char is not None:
            if char not in _ESCAPED:
                return None
            out.append(_ESCAPED[char])
        elif token.group("math") is not None:
            return None
        elif token.group("brace") is None:  # an accent on a letter
            bare = token.group("bare") or ""
            if "\n\n" in token.group() or (
                bare.startswith("\\") and value[token.end() : token.end() + 1].isspace()
            ):
                return None  # a paragraph break; `\\'\\i ab` (TeX eats that space)
            mark = token.group("accent") or token.group("letter_accent")
            base = [b for b in token.group(*_ACCENTED) if b is not None][0]
            out.append(unicodedata.normalize("NFC", base[-1] + _COMBINING[mark]))
    return " ".join("".join(out).split())


def _command_text(name: str) -> str | None:
    if name in _LOGOS:
        return _LOGOS[name]
    if name in _LETTERS:
        return _LETTERS[name]
    if name in _SWITCHES or name in _ARGUMENT_IS_TEXT:
        return ""  # the argument of the second kind follows as text
    decoder, walker_context = _decoder()
    if (
        walker_context.get_macro_spec(name) is None
        and decoder.latex_context.get_macro_spec(name) is None
    ):
        return name  # unknown: its name, as `_Text` gives it
    return None


_TEX_MARKS = re.compile(r"\\(?:[A-Za-z]+|.)|[{}$]|\s+", re.S)


def _unwrap(value: str) -> str:
    """The value without braces around all of it (`{{Title}}`), which print nothing."""
    value = value.strip()
    while value.startswith("{") and value.endswith("}"):
        depth = 0
        for mark in _TEX_MARKS.finditer(value):
            depth += {"{": 1, "}": -1}.get(mark.group(), 0)
            if depth == 0:
                break
        if mark.end() != len(value):
            break  # `{A} and {B}`: the first brace closes before the end
        value = value[1:-1].strip()
    return value


def _tex_words(value: str) -> list[str]:
    """Split at spaces outside braces and math, except a space that ends a command's
    name (`\\c c`, `\\raise .25ex`): each word then reads alone as it does in place."""
    words, depth, math, start, command_end = [], 0, False, 0, -1
    for mark in _TEX_MARKS.finditer(value):
        text = mark.group()
        if text == "{":
            depth += 1
        elif text == "}":
            depth -= 1
        elif text == "$":
            math = not math
        elif text[0] == "\\":
            command_end = mark.end() if text[1:].isalpha() else -1
        elif depth == 0 and not math and mark.start() != command_end:
            words.append(value[start : mark.start()])
            start = mark.end()
    words.append(value[start:])
    return words


def _unescape_verbatim(value: str) -> str:
    value = re.sub(r"\\url\{(.*)\}", r"\1", value.strip())
    return re.sub(r"\\([_%&#~$])", r"\1", value).strip()


# -- interpreting an entry ---------------------------------------------------------

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
        name = _MONTH_NAMES.get(word[:3], "")
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


def fold(text: str) -> str:
    """Text for comparing: no accents, no case, words of letters and digits only."""
    if not text.isascii():
        text = unicodedata.normalize("NFKD", text)
        text = "".join(c for c in text if not unicodedata.combining(c))
    return " ".join(_NOT_WORD.sub(" ", text.casefold()).split())


_NOT_WORD = re.compile(r"[\W_]+")
