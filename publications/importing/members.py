"""Which lab members the authors of a BibTeX entry are."""

import functools
import re
from collections.abc import Iterable
from dataclasses import dataclass

from people.models import Person
from publications.bibtex.entries import Author, ParsedEntry
from publications.bibtex.names import fold, name_parts
from publications.importing.report import AmbiguousAuthor, ImportReport, SkippedEntry


@functools.lru_cache(maxsize=65536)
def _squash(text: str) -> str:
    return fold(text).replace(" ", "")


def _initials(given: str) -> str:
    """Initials of given names ("S.-Y." → "sy"), blank unless they are initials."""
    tokens = [t for t in re.split(r"[\s.\-‐]+", given) if t]
    if tokens and all(len(t) == 1 for t in tokens):
        return fold("".join(tokens)).replace(" ", "")
    if len(tokens) == 1 and tokens[0].isupper() and len(tokens[0]) <= 3:
        return tokens[0].lower()  # "SY", as Google Scholar prints initials
    return ""


def printed_name(name: str) -> Author:
    """Return the author a name as printed ("Zheng, S.", "Lei Zhu") is."""
    given, family, _ = name_parts(name)
    return Author(name, family, given, "")


@dataclass
class _Member:
    person: Person
    family: str
    givens: set[str]
    wholes: set[str]
    initial: str


@dataclass
class AuthorPlan:
    """An author as the import writes it: the printed name and the member, if any."""

    name: str
    family_name: str
    person: Person | None
    equal_contribution: bool = False
    corresponding: bool = False


class Members:
    """Which members a printed name can refer to."""

    def __init__(self, people: Iterable[Person]) -> None:
        self.members = [self._member(p) for p in people]
        self.cache: dict[Author, tuple[list[Person], bool]] = {}
        self.by_pk = {m.person.pk: m.person for m in self.members}

    @staticmethod
    def _member(p: Person) -> _Member:
        givens = {_squash(g) for g in (p.given_name, p.preferred_name) if g}
        display = p.display_name.split()
        wholes = {
            _squash(n)
            for n in (
                p.display_name,
                p.native_name,
                f"{p.given_name} {p.family_name}",
                f"{p.family_name} {p.given_name}",
            )
            if n.strip()
        }
        if len(display) > 1 and _squash(display[-1]) == _squash(p.family_name):
            givens.add(_squash(" ".join(display[:-1])))
        return _Member(
            p, _squash(p.family_name), givens - {""}, wholes, fold(p.given_name)[:1]
        )

    def candidates(self, author: Author) -> tuple[list[Person], bool]:
        """The members a name fits, and whether it names them in full."""
        if author not in self.cache:
            found = self.full(author)
            self.cache[author] = (
                (found, True) if found else (self.by_initials(author), False)
            )
        return self.cache[author]

    def full(self, author: Author) -> list[Person]:
        family, given = _squash(author.family), _squash(author.given)
        first_given = _squash(author.given.split()[0]) if author.given else ""
        whole = _squash(author.name)
        found = []
        for m in self.members:
            if (
                whole in m.wholes
                or (
                    family == m.family
                    and (given in m.givens or first_given in m.givens)
                )
                or (given == m.family and family in m.givens)
            ):
                found.append(m.person)
        return found

    def by_initials(self, author: Author) -> list[Person]:
        initials = _initials(author.given)
        if not initials:
            return []
        family = _squash(author.family)
        return [
            m.person
            for m in self.members
            if m.family == family and m.initial and initials[0] == m.initial
        ]

    def loosely(self, author: Author, person: Person) -> bool:
        """Whether the name can be this member's, judging by family name and initial."""
        member = next(m for m in self.members if m.person.pk == person.pk)
        family, given = _squash(author.family), _squash(author.given)
        if family == member.family:
            return not given or given[:1] == member.initial
        return given == member.family and family[:1] == member.initial


def match_authors(
    entry: ParsedEntry,
    members: Members,
    *,
    person: Person | None,
    report: ImportReport,
) -> list[AuthorPlan]:
    """Link each author of `entry` to the one member the name fits; report the rest."""
    plans = [AuthorPlan(a.name, a.family_name, None) for a in entry.authors]
    candidates: list[list[Person]] = []
    full: list[bool] = []
    for author in entry.authors:
        found, is_full = members.candidates(author)
        full.append(is_full)
        candidates.append(found)
    taken: set[int] = set()
    # Full-name matches first, so that "S. Zheng" cannot take a member whom
    # "Sam Zheng" on the same list names in full.
    for strong in (True, False):
        for i, found in enumerate(candidates):
            if len(found) == 1 and full[i] == strong and found[0].pk not in taken:
                plans[i].person = found[0]
                taken.add(found[0].pk)
    ambiguous = {
        i
        for i, found in enumerate(candidates)
        if plans[i].person is None
        and found
        and not (len(found) == 1 and found[0].pk in taken)
    }
    if person is not None and person.pk not in taken:
        ambiguous.discard(_place_person(entry, members, person, plans, report))
    for i in sorted(ambiguous):
        report.ambiguous.append(
            AmbiguousAuthor(
                entry.key,
                entry.line,
                entry.authors[i].name,
                [p.display_name for p in candidates[i]],
            )
        )
    return plans


def _place_person(
    entry: ParsedEntry,
    members: Members,
    person: Person,
    plans: list[AuthorPlan],
    report: ImportReport,
) -> int | None:
    """Give `person` the one unmatched author who can be them; return its index."""
    loose = [
        i
        for i, author in enumerate(entry.authors)
        if plans[i].person is None and members.loosely(author, person)
    ]
    if len(loose) == 1:
        plans[loose[0]].person = person
        return loose[0]
    report.person_missing.append(
        SkippedEntry(
            entry.key,
            entry.line,
            f"{person.display_name} is not among the authors"
            if not loose
            else f"{len(loose)} authors could be {person.display_name}",
        )
    )
    return None
