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
from publications.bibtex.fields import MONTH_NAMES, is_public
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

# Bounds on what a small file may grow into: `@string` macros that repeat each
# other double at every step, and crossref chains are followed one by one.
FIELD_LIMIT = 100_000  # characters of one field once its macros are expanded
EXPANSION_LIMIT = 10_000_000  # characters all expansions and crossrefs add
CROSSREF_DEPTH = 10


def decode_bytes(data: bytes) -> str:
    """Text of an uploaded file: UTF-8, with any other bytes kept for error reports."""
    # surrogateescape keeps undecodable bytes as lone surrogates, so the parser can
    # name the entry holding them instead of rejecting the whole file.
    return data.decode("utf-8", errors="surrogateescape").removeprefix("\ufeff")


@without_cycle_collection()
def parse_bibtex(text: str, *, keep_private: bool = False) -> ParseResult:
    """Split, expand and decode a BibTeX file; report what cannot be read.

    The text kept of each entry holds only its public fields (`is_public`) unless
    `keep_private`."""
    resolve = _Resolve(keep_private=keep_private)
    # One middleware, and TeX decoded as entries are converted: on a real file a
    # pass over every field of every entry cost more than the work it did.
    library = bibtexparser.parse_string(text, parse_stack=[resolve])
    result = ParseResult([], [], [], resolve.parents)
    first_lines = {}
    # Most files are clean UTF-8: one search spares one per entry and field.
    bad_bytes = _SURROGATE.search(text) is not None
    has_nul = "\x00" in text
    for block in library.blocks:
        if isinstance(block, Entry):
            first_lines.setdefault(block.key, _line(block))
            problem = block.parser_metadata.get("problem") or (
                has_nul and _nul_problem(block)
            )
            if problem:
                result.errors.append(EntryProblem(block.key, _line(block), problem))
            else:
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


def _nul_problem(entry: Entry) -> str:
    """Why an entry holding a NUL character cannot be stored (no database text
    may hold one), naming its field."""
    for f in entry.fields:
        if "\x00" in f.key or (isinstance(f.value, str) and "\x00" in f.value):
            return f"field `{f.key.strip(chr(0))}` holds a NUL character (\\x00)"
    if "\x00" in entry.key or "\x00" in (entry.raw or ""):
        return "holds a NUL character (\\x00)"
    return ""


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

    def __init__(self, *, keep_private: bool = False) -> None:
        super().__init__(allow_inplace_modification=True)
        self.parents: set[str] = set()
        self.keep_private = keep_private
        # What expanding macros and crossrefs may still add to the file.
        self.budget = EXPANSION_LIMIT
        # Macros whose value would pass a limit: the reason, for entries using one.
        self.oversized: dict[str, str] = {}

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
                name = string.key.lower()
                self.oversized.pop(name, None)
                try:
                    value, _, _ = self._evaluate(string.value, macros)
                except _TooLong as exc:
                    self.oversized[name] = (
                        exc.args[0].removeprefix("uses ")
                        if exc.args
                        else f"macro `{string.key}`, which is longer than "
                        f"{FIELD_LIMIT:,} characters once expanded"
                    )
                    value = ""
                macros[name] = value
                self.budget -= len(value)
                expressions.clear()
            if isinstance(block, Entry):
                block = self._expand(block, macros, expressions, children)
            blocks.append(block)
        library = Library(blocks=blocks, fail_on_duplicate_key=False)
        entries = {entry.key.lower(): entry for entry in library.entries}
        done: set[str] = set()
        for entry in children:
            self._inherit(entry, entries, done, [])
        for entry in library.entries:
            meta = entry.parser_metadata
            private = not self.keep_private and not all(
                is_public(f.key, f.value) for f in entry.fields
            )
            if meta.get("resolved") or private:
                meta["resolved_text"] = _resolved_text(entry, self.keep_private)
        return library

    def _evaluate(
        self, value: str, macros: dict[str, str]
    ) -> tuple[str, set[str], list[str]]:
        """`_evaluate` within the bounds: _TooLong past a field's or the file's."""
        limit = min(FIELD_LIMIT, max(self.budget, 0))
        try:
            return _evaluate(value, macros, limit=limit, oversized=self.oversized)
        except _TooLong as exc:
            if exc.args or limit == FIELD_LIMIT:
                raise
            raise _TooLong(_OVER_BUDGET) from None

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
        if self.budget <= 0:
            entry.parser_metadata["problem"] = _OVER_BUDGET
            return entry
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
                try:
                    text, used, unknown = self._evaluate(value, macros)
                except _TooLong as exc:
                    entry.parser_metadata["problem"] = _too_long(key, exc)
                    return entry
                expressions[value] = (text, bool(used - MONTH_NAMES.keys()), unknown)
            text, resolved, unknown = expressions[value]
            f.value = text
            if resolved:
                entry.parser_metadata["resolved"] = True
                # Each use is written out again in the entry's kept text.
                self.budget -= len(text)
                if self.budget < 0:
                    entry.parser_metadata["problem"] = _OVER_BUDGET
                    return entry
            for name in unknown:
                warnings.append(f"undefined macro `{name}` in `{key}`, kept as text")
        return entry

    def _inherit(self, entry: Entry, entries: dict, done: set, chain: list) -> None:
        key = entry.key.lower()
        if key in done or key in chain:
            return
        done.add(key)
        fields = entry.fields_dict
        parent_key = fields.get("crossref")
        meta = entry.parser_metadata
        if parent_key is None or meta.get("problem"):
            return
        parent = entries.get(str(parent_key.value).strip().lower())
        if parent is None:
            meta.setdefault("warnings", []).append(
                f"crossref `{parent_key.value}` is not in the file"
            )
            return
        self.parents.add(parent.key.lower())
        try:
            if len(chain) >= CROSSREF_DEPTH:
                raise _TooDeep
            self._inherit(parent, entries, done, [*chain, key])
        except _TooDeep:
            # Reported on the entry that starts the chain; the others in it may
            # start a chain short enough.
            done.discard(key)
            if chain:
                raise
            meta["problem"] = f"its crossref chain is over {CROSSREF_DEPTH} links"
            done.add(key)
            return
        if parent.parser_metadata.get("problem"):
            meta["problem"] = f"its crossref `{parent.key}` cannot be read"
            return
        inherited = dict(parent.fields_dict)
        # The parent's title names the proceedings or book the child is in.
        if "booktitle" not in inherited and "title" in inherited:
            inherited["booktitle"] = inherited["title"]
        for name, value in inherited.items():
            if name not in fields and name not in ("title", "crossref"):
                entry.set_field(Field(name, value.value))
                self.budget -= len(value.value)
        meta["resolved"] = True
        if self.budget < 0:
            meta["problem"] = _OVER_BUDGET


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


class _TooLong(Exception):
    """A value past its bound: the reason, or none for the bound it was given."""


class _TooDeep(Exception):
    """A crossref chain past CROSSREF_DEPTH."""


_OVER_BUDGET = (
    f"the file's macros and crossrefs expand to more than {EXPANSION_LIMIT:,} "
    "characters; this entry and the ones after it are not read"
)


def _too_long(field: str, exc: _TooLong) -> str:
    """What an entry whose `field` is past a bound is told."""
    if exc.args and exc.args[0].endswith(_OVER_BUDGET):
        return _OVER_BUDGET
    reason = (
        exc.args[0]
        if exc.args
        else (f"is longer than {FIELD_LIMIT:,} characters once its macros are expanded")
    )
    return f"field `{field}` {reason}"


def _evaluate(
    value: str,
    macros: dict[str, str],
    *,
    limit: int = FIELD_LIMIT,
    oversized: dict[str, str] | None = None,
) -> tuple[str, set[str], list[str]]:
    """The text of a value expression: literals and macros joined by `#`, at most
    `limit` characters long (else _TooLong)."""
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
    text, used, unknown, length = [], set(), [], 0
    for piece in pieces:
        name = piece.lower()
        if len(piece) >= 2 and piece[0] + piece[-1] in ("{}", '""'):
            piece = piece[1:-1]
        elif oversized and name in oversized:
            raise _TooLong(f"uses {oversized[name]}")
        elif name in macros and not piece.isdigit():
            used.add(name)
            piece = macros[name]
        elif piece and not piece.isdigit():
            unknown.append(piece)
        length += len(piece)
        if length > limit:
            raise _TooLong
        text.append(piece)
    return "".join(text), used, unknown


def _resolved_text(entry: Entry, keep_private: bool) -> str:
    """The entry written self-contained: macros expanded, crossref fields merged,
    private fields left out unless `keep_private`."""
    # As bibtexparser writes it, without its writer: that deep-copies the library
    # for every entry, and most entries of a real file use a macro.
    fields = ",\n".join(
        f"\t{f.key} = {{{f.value}}}"
        for f in entry.fields
        if f.key != "crossref" and (keep_private or is_public(f.key, f.value))
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
