"""What an import tells its caller: each entry's fate, and what it could not settle."""

from dataclasses import dataclass, field

from publications.bibtex.entries import EntryProblem
from publications.models import Publication


@dataclass
class ImportedItem:
    key: str
    line: int
    title: str
    year: int | None = None
    venue: str = ""
    authors: list[tuple[str, str]] = field(default_factory=list)  # (name, member)
    changes: list[str] = field(default_factory=list)
    publication: Publication | None = None


# An entry left out of an import: the same record as a parsing problem.
SkippedEntry = EntryProblem


@dataclass
class AmbiguousAuthor:
    key: str
    line: int
    author: str
    candidates: list[str]  # display names of the members the name fits


@dataclass
class ImportReport:
    source: str
    dry_run: bool = False
    created: list[ImportedItem] = field(default_factory=list)
    updated: list[ImportedItem] = field(default_factory=list)
    unchanged: list[ImportedItem] = field(default_factory=list)
    skipped: list[SkippedEntry] = field(default_factory=list)
    invalid: list[SkippedEntry] = field(default_factory=list)
    ambiguous: list[AmbiguousAuthor] = field(default_factory=list)
    person_missing: list[SkippedEntry] = field(default_factory=list)
    venues_created: list[str] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    matched_members: int = 0

    @property
    def skipped_total(self) -> int:
        return len(self.skipped) + len(self.invalid)

    def summary(self) -> str:
        text = (
            f"{len(self.created)} created, {len(self.updated)} updated, "
            f"{len(self.unchanged)} unchanged, {self.skipped_total} skipped; "
            f"{self.matched_members} authors matched to members, "
            f"{len(self.ambiguous)} ambiguous"
        )
        return f"Dry run, nothing written: {text}" if self.dry_run else text


class InvalidEntry(Exception):
    """An entry that cannot be imported as it stands; the message says why."""
