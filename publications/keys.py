"""One citation key per publication, the same on its page, in the API and in every
export, and unique across the site (compared without case, as BibTeX does).

A work keeps the key of its source's BibTeX entry where it has one; otherwise its
key is made as BibTeX tools make them: the first placed author's family name, the
year and the title's first word (`zhou2024kv`), or the title's word and the year
when no author's place is known (`kitty2026`). A key another work already holds gets
a letter (`zhou2024kvb`). A key stays as it is while the facts it was made from
hold, so that a document citing it keeps working; it is assigned after each write
of the publication's search document (`after_index`), which every writer reaches.
"""

import re
import unicodedata
from collections.abc import Iterable, Iterator

from django.db import IntegrityError, transaction
from django.db.models.functions import Lower

from publications.models import Authorship, Publication

BATCH = 5000
# The letters a key may carry past its base: `zhou2024kv`, `zhou2024kvb`, `…kvaa`.
_SUFFIXED = r"(?:[a-z]{1,2})?"
_ENTRY_KEY = re.compile(r"^\s*@\s*\w+\s*[{(]\s*([^,\s]+)\s*,")
_NOT_KEY = re.compile(r"[^a-z0-9]")
# What a key may hold to be read back by BibTeX, biber and pandoc alike.
_USABLE_KEY = re.compile(r"[A-Za-z0-9][A-Za-z0-9_:.+/-]{0,199}")
# Words a key passes over for the title's first, as Google Scholar's keys do.
_SKIPPED = frozenset("a an the of on in for from to and with towards toward".split())


def _ascii(text: str) -> str:
    """The letters and digits of a name or word, accents dropped, lower case."""
    text = unicodedata.normalize("NFKD", text)
    return _NOT_KEY.sub("", text.encode("ascii", "ignore").decode().lower())


def family_of(name: str, family_name: str = "") -> str:
    if family_name:
        return family_name
    words = name.replace(",", " , ").split()
    if "," in words:  # "Zheng, S." prints the family name first
        return " ".join(words[: words.index(",")])
    return words[-1] if words else ""


def source_key(citation_key: str, bibtex: str) -> str:
    """The key of the source's own entry, if it gave one that BibTeX can read."""
    if not citation_key:
        match = _ENTRY_KEY.match(bibtex or "")
        citation_key = match.group(1) if match else ""
    return citation_key if _USABLE_KEY.fullmatch(citation_key) else ""


def base_key(
    title: str, year: int | None, first: tuple[str, str] | None, source: str = ""
) -> str:
    """The key a work would have if no other work held it."""
    if source:
        return source
    words = [_ascii(w) for w in title.split()]
    word = next((w for w in words if w and w not in _SKIPPED), "") or "work"
    when = "nd" if year is None else str(year)
    family = _ascii(family_of(*first)) if first else ""
    return f"{family}{when}{word}" if family else f"{word}{when}"


def key_for(publication: Publication) -> str:
    """The publication's key: the stored one, or (before it is stored) its base."""
    if publication.cite_key:
        return publication.cite_key
    placed = publication.ordered_authors[:1]
    first = (placed[0].name, placed[0].family_name) if placed else None
    source = source_key(publication.citation_key, publication.bibtex)
    return base_key(publication.title, publication.year, first, source)


def _keeps(current: str, base: str) -> bool:
    return bool(current) and bool(
        re.fullmatch(re.escape(base) + _SUFFIXED, current, re.IGNORECASE)
    )


def _letters(n: int) -> str:
    """1 → "" (the base itself), 2 → "b", …, 26 → "z", 27 → "aa"."""
    letters = ""
    while n > 1 or (letters and n):
        n, rest = divmod(n - 1, 26)
        letters = chr(ord("a") + rest) + letters
    return letters


def _candidates(base: str, start: int, count: int = 27) -> list[str]:
    return [base + _letters(n) for n in range(start, start + count)]


def _batches(ids: list[int]) -> Iterator[list[int]]:
    for start in range(0, len(ids), BATCH):
        yield ids[start : start + BATCH]


def assign(ids: Iterable[int], models=(Publication, Authorship)) -> None:
    """Give each of these publications its key, where it has none or its facts
    changed. `models` are a migration's historical models where one calls it."""
    for batch in _batches(sorted(set(ids))):
        try:
            with transaction.atomic():
                _assign(batch, *models)
        except IntegrityError:
            # Another writer took one of the keys meanwhile: choose again.
            with transaction.atomic():
                _assign(batch, *models)


def _first_authors(authorship, ids: list[int]) -> dict[int, tuple[str, str]]:
    firsts: dict[int, tuple[str, str]] = {}
    rows = (
        authorship.objects.filter(publication_id__in=ids, position_unknown=False)
        .order_by("publication_id", "position")
        .values_list("publication_id", "name", "family_name")
    )
    for publication, name, family in rows:
        firsts.setdefault(publication, (name, family))
    return firsts


def _assign(ids: list[int], publication, authorship) -> None:
    firsts = _first_authors(authorship, ids)
    wanted: dict[int, str] = {}
    rows = publication.objects.filter(pk__in=ids).values_list(
        "pk", "title", "year", "citation_key", "bibtex", "cite_key"
    )
    for pk, title, year, citation_key, bibtex, current in rows:
        base = base_key(title, year, firsts.get(pk), source_key(citation_key, bibtex))
        if not _keeps(current, base):
            wanted[pk] = base
    if not wanted:
        return
    # Free the keys being replaced first, so that two works may swap keys.
    publication.objects.filter(pk__in=list(wanted)).update(cite_key="")
    chosen = _choose(publication, wanted)
    publication.objects.bulk_update(
        [publication(pk=pk, cite_key=key) for pk, key in chosen.items()],
        ["cite_key"],
        batch_size=1000,
    )


def _choose(publication, wanted: dict[int, str]) -> dict[int, str]:
    """The first free key of each base, in record order; letters for the rest."""
    chosen: dict[int, str] = {}
    taken: set[str] = set()
    pending = dict(sorted(wanted.items()))
    start = 1
    while pending:
        candidates = {
            c.lower()
            for base in set(pending.values())
            for c in _candidates(base, start)
        }
        taken |= _taken(publication, candidates)
        left = {}
        for pk, base in pending.items():
            free = [c for c in _candidates(base, start) if c.lower() not in taken]
            if free:
                chosen[pk] = free[0]
                taken.add(free[0].lower())
            else:
                left[pk] = base
        pending, start = left, start + 27
    return chosen


def _taken(publication, candidates: set[str]) -> set[str]:
    taken: set[str] = set()
    values = sorted(candidates)
    for start in range(0, len(values), 900):
        chunk = values[start : start + 900]
        taken |= set(
            publication.objects.annotate(key=Lower("cite_key"))
            .filter(key__in=chunk)
            .values_list("key", flat=True)
        )
    return taken


def report() -> str:
    """After a rebuild (which assigned them): how many works have a key."""
    count = Publication.objects.exclude(cite_key="").count()
    return f"{count} publications have a citation key."
