"""Which existing record, or which earlier entry of the same file, an entry is."""

import re
from collections import defaultdict
from dataclasses import dataclass
from difflib import SequenceMatcher

from publications.bibtex.entries import ParsedEntry
from publications.bibtex.fields import Bibliographic, venue_name
from publications.bibtex.names import fold
from publications.models import Publication


def _doi_key(doi: str) -> str:
    return doi.strip().lower()


def _arxiv_key(arxiv_id: str) -> str:
    return re.sub(r"v\d+$", "", arxiv_id.strip().lower().removeprefix("arxiv:"))


def _pages_key(pages: str) -> str:
    return re.sub(r"[\s\-–—]+", "-", pages.strip().lower())


@dataclass
class Target:
    """A record an entry can match: one in the database, or one this file creates."""

    pk: int | None
    title: str
    year: int
    venue_id: int | None
    venue_label: tuple[str, str]  # name and short name of its venue
    volume: str
    number: str
    pages: str
    doi: str
    arxiv_id: str
    source_file: str
    entry: ParsedEntry | None = None  # set when this file creates it

    @classmethod
    def of_entry(
        cls, entry: ParsedEntry, values: Bibliographic, source: str
    ) -> "Target":
        """Return the record that `entry` creates, for later entries to match."""
        return cls(
            pk=None,
            title=values.title,
            year=values.year,
            venue_id=None,
            venue_label=(values.venue, ""),
            volume=values.volume,
            number=values.number,
            pages=values.pages,
            doi=values.doi,
            arxiv_id=values.arxiv_id,
            source_file=source,
            entry=entry,
        )


# How an entry was found that identifies the work itself, whatever file gave the
# record: the entry may then correct the record (see the planner).
IDENTIFYING = {"DOI", "arXiv id", "citation key"}


class RecordIndex:
    """Records by DOI, arXiv id, citation key, and title with year."""

    def __init__(self) -> None:
        self.by_doi: dict[str, Target] = {}
        self.by_arxiv: dict[str, Target] = {}
        self.by_key: dict[str, list[Target]] = defaultdict(list)
        self.by_title: dict[tuple[str, int], list[Target]] = defaultdict(list)
        self.by_title_any_year: dict[str, list[Target]] = defaultdict(list)

    @classmethod
    def of_existing(cls, venue_labels: dict[int, tuple[str, str]]) -> "RecordIndex":
        """Index every publication in the database."""
        index = cls()
        for row in Publication.objects.values(
            "pk",
            "title",
            "year",
            "venue_id",
            "volume",
            "number",
            "pages",
            "doi",
            "arxiv_id",
            "source_file",
            "citation_key",
        ):
            key = row.pop("citation_key")
            row["venue_label"] = venue_labels.get(row["venue_id"], ("", ""))
            index.add(Target(**row), key)
        return index

    def add(self, target: Target, citation_key: str) -> None:
        if target.doi:
            self.by_doi.setdefault(_doi_key(target.doi), target)
        if target.arxiv_id:
            self.by_arxiv.setdefault(_arxiv_key(target.arxiv_id), target)
        if citation_key:
            self.by_key[citation_key].append(target)
        self.by_title[(fold(target.title), target.year)].append(target)
        self.by_title_any_year[fold(target.title)].append(target)

    def find(
        self, values: Bibliographic, key: str, source: str
    ) -> tuple[Target | None, str]:
        """The record an entry is, and by what it was found ("DOI", …)."""
        if values.doi and _doi_key(values.doi) in self.by_doi:
            return self.by_doi[_doi_key(values.doi)], "DOI"
        if values.arxiv_id and _arxiv_key(values.arxiv_id) in self.by_arxiv:
            return self.by_arxiv[_arxiv_key(values.arxiv_id)], "arXiv id"
        if (target := self._by_key(values, key, source)) is not None:
            return target, "citation key"
        for target in self.by_title.get((fold(values.title), values.year), []):
            if _compatible(values, target):
                return target, "title and year"
        # An entry with no year (undated, or under review as this site exports it)
        # is the one record of that title, whatever year the record gives.
        if values.year is None:
            same = self.by_title_any_year.get(fold(values.title), [])
            same = [target for target in same if _compatible(values, target)]
            if len(same) == 1:
                return same[0], "title (the entry gives no year)"
        return None, ""

    def _by_key(self, values: Bibliographic, key: str, source: str) -> Target | None:
        """The record with this citation key from this file; else the one record
        of another file with the key and a title alike, unless their DOIs or
        arXiv ids differ."""
        found = [t for t in self.by_key.get(key, []) if not _other_work(values, t)]
        same_file = [t for t in found if t.source_file == source]
        if same_file:
            return same_file[0]
        # Files reuse short keys ("smith2020", "k1") for works of their own: from
        # another file, the key counts for a title that is only corrected.
        alike = [t for t in found if _titles_alike(values.title, t.title)]
        return alike[0] if len(alike) == 1 else None


def _other_work(values: Bibliographic, target: Target) -> bool:
    """Whether the entry and the record carry different DOIs or arXiv ids."""
    pairs = [
        (_doi_key(values.doi), _doi_key(target.doi)),
        (_arxiv_key(values.arxiv_id), _arxiv_key(target.arxiv_id)),
    ]
    return any(a and b and a != b for a, b in pairs)


def _titles_alike(first: str, second: str) -> bool:
    """The same title, a title with a typo fixed, or one with a subtitle added."""
    a, b = fold(first), fold(second)
    if a == b or (min(len(a), len(b)) >= 10 and (a in b or b in a)):
        return True
    return SequenceMatcher(None, a, b).ratio() >= 0.8


def _compatible(values: Bibliographic, target: Target) -> bool:
    """Whether a record with the same title and year can be the same work."""
    pairs = [
        (values.volume.lower(), target.volume.lower()),
        (values.number.lower(), target.number.lower()),
        (_pages_key(values.pages), _pages_key(target.pages)),
    ]
    if _other_work(values, target) or any(a and b and a != b for a, b in pairs):
        return False
    name, short = target.venue_label
    if not values.venue or not name:
        return True
    text = fold(values.venue)
    venue = fold(name)
    # Booktitles dress a venue's name up ("Proceedings of the 62nd …"), so a name
    # inside the other, or the short name as a word, counts as the same venue.
    return (
        venue in text
        or text in venue
        or fold(venue_name(values.venue)[0]) == venue
        or bool(short and re.search(rf"\b{re.escape(fold(short))}\b", text))
    )
