"""A BibTeX file as plain records (`entries`): its entries with their fields decoded
to text and their authors split, and what cannot be read, with its line.

bibtexparser 2 splits the file; one middleware of ours then does what its own
lack or do slowly: `@string` macros and `#` concatenation expanded, braces and
quotes stripped, `crossref` fields inherited. TeX is decoded (`tex`) as entries
are converted, only in the fields an import reads. Nothing here touches the
database; only an import loads this module (and, with it, pylatexenc).
"""

import functools
import re

import bibtexparser
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

from core.bulk import without_cycle_collection
from publications.bibtex.entries import Author, EntryProblem, ParsedEntry, ParseResult
from publications.bibtex.fields import MONTH_NAMES
from publications.bibtex.tex import decode_latex, unescape_verbatim

# Fields that hold identifiers or addresses, never TeX to decode.
_VERBATIM_FIELDS = {"url", "doi", "eprint", "file", "pdf", "arxivid", "isbn", "issn"}
# Fields an import reads as text (`bibliographic`); the others stay as written in
# the kept BibTeX, so decoding them (abstracts, keywords…) would be time lost.
_TEXT_FIELDS = {
    "title",
    "journal",
    "journaltitle",
    "booktitle",
    "eventtitle",
    "howpublished",
    "school",
    "institution",
    "publisher",
    "note",
    "pubstate",
    "key",
    "year",
    "date",
    "month",
    "volume",
    "number",
    "issue",
    "pages",
    "archiveprefix",
    "eprinttype",
}
_VALUE_MARKS = re.compile(r'(?<!\\)[{}"#]')
_DELIMITERS = re.compile(r'(?<!\\)[{}"]')
_SURROGATE = re.compile("[\udc80-\udcff]")
_ENTRY_HEAD = re.compile(r"@\s*(\w+)\s*[{(]\s*([^,\s{}()]*)")


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
            value = unescape_verbatim(value)
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
        macros = dict(MONTH_NAMES)
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
                f.value = _strip_enclosing(value)
                continue
            if value not in expressions:
                text, used, unknown = _evaluate(value, macros)
                expressions[value] = (text, bool(used - MONTH_NAMES.keys()), unknown)
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


def _strip_enclosing(value: str) -> str:
    """A literal's text: without the braces or quotes that enclose all of it."""
    value = value.strip()
    if len(value) >= 2 and value[0] + value[-1] in ("{}", '""') and _encloses(value):
        return value[1:-1]
    return value


def _encloses(value: str) -> bool:
    """Whether the brace or quote that opens a value is the one that ends it
    (`{a} {b}` opens and ends with braces of two pairs); escaped ones do not count."""
    braced, depth = value[0] == "{", 0
    for mark in _DELIMITERS.finditer(value, 1, len(value) - 1):
        char = mark.group()
        if char == "{":
            depth += 1
        elif char == "}":
            depth -= 1
            if depth < 0 and braced:
                return False  # the opening brace closed before the end
            depth = max(depth, 0)
        elif not braced and depth == 0:
            return False  # a quote outside braces ends the quoted text early
    # Braces also need the last one to close the first: unescaped, at depth zero.
    return not braced or (depth == 0 and value[-2] != "\\")


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
