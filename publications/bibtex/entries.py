"""What reading a BibTeX file gives: its entries, their authors, its problems.

Plain records, so that the import's planning and reports can name them without
loading the parser (`parser.parse_bibtex` makes them).
"""

from dataclasses import dataclass, field


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
