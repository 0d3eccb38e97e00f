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

from django.db import IntegrityError, connection, transaction
from django.db.models.functions import Lower

from publications.models import Authorship, Publication

BATCH = 5000
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
    words = (_ascii(w) for w in title.split())
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
    """Whether `current` is `base` or `base` and one or two letters, any case
    (string tests: a rebuild asks this of every work)."""
    if not current.lower().startswith(base.lower()):
        return False
    rest = current[len(base) :]
    return not rest or (len(rest) <= 2 and rest.isascii() and rest.isalpha())


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
    ids = sorted(set(ids))
    # Many works (a rebuild, a generated lab): every key read once, not looked up.
    known = _all_keys(models[0]) if len(ids) > BATCH else None
    for batch in _batches(ids):
        try:
            with transaction.atomic():
                _assign(batch, *models, known=known)
        except IntegrityError:
            # Another writer took one of the keys meanwhile: choose again.
            with transaction.atomic():
                _assign(batch, *models, known=None)


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


def _assign(ids: list[int], publication, authorship, known: set | None) -> None:
    firsts = _first_authors(authorship, ids)
    wanted: dict[int, str] = {}
    replaced = []
    rows = publication.objects.filter(pk__in=ids).values_list(
        "pk", "title", "year", "citation_key", "bibtex", "cite_key"
    )
    for pk, title, year, citation_key, bibtex, current in rows:
        base = base_key(title, year, firsts.get(pk), source_key(citation_key, bibtex))
        if not _keeps(current, base):
            wanted[pk] = base
            if current:
                replaced.append(pk)
                if known is not None:
                    known.discard(current.lower())
    if not wanted:
        return
    # Free the keys being replaced first, so that two works may swap keys.
    if replaced:
        publication.objects.filter(pk__in=replaced).update(cite_key="")
    chosen = _choose(publication, wanted, known)
    meta = publication._meta
    with connection.cursor() as cursor:
        # One prepared statement for all: bulk_update's CASE over a thousand rows
        # cost minutes for a generated lab of 100,000 works.
        table, pk = meta.db_table, meta.pk.column
        cursor.executemany(
            f'UPDATE "{table}" SET "cite_key" = %s WHERE "{pk}" = %s',
            [(key, row) for row, key in chosen.items()],
        )


def _choose(publication, wanted: dict[int, str], known: set | None) -> dict[int, str]:
    """The first free key of each base, in record order; letters for the rest.
    The bases alone are looked up first: most are free. `known`: every key held,
    kept up to date here, in place of lookups."""
    if known is not None:
        return _choose_from(known, wanted)
    chosen: dict[int, str] = {}
    taken: set[str] = set()
    pending = dict(sorted(wanted.items()))
    start, width = 1, 1
    while pending:
        window = {
            base: _candidates(base, start, width) for base in set(pending.values())
        }
        lowered = {c.lower() for cs in window.values() for c in cs}
        taken |= _taken(publication, lowered)
        left = {}
        for pk, base in pending.items():
            free = [c for c in window[base] if c.lower() not in taken]
            if free:
                chosen[pk] = free[0]
                taken.add(free[0].lower())
            else:
                left[pk] = base
        pending, start, width = left, start + width, 27
    return chosen


def _choose_from(known: set[str], wanted: dict[int, str]) -> dict[int, str]:
    """As `_choose`, every key held being known (and kept up to date)."""
    chosen: dict[int, str] = {}
    tried: dict[str, int] = {}  # the next letter worth trying, by base
    for pk, base in sorted(wanted.items()):
        n = tried.get(base, 1)
        while (base + _letters(n)).lower() in known:
            n += 1
        chosen[pk] = base + _letters(n)
        known.add(chosen[pk].lower())
        tried[base] = n + 1
    return chosen


def _all_keys(publication) -> set[str]:
    keys = publication.objects.exclude(cite_key="").values_list("cite_key", flat=True)
    return {key.lower() for key in keys.order_by().iterator(chunk_size=10_000)}


def _taken(publication, candidates: set[str]) -> set[str]:
    taken: set[str] = set()
    values = sorted(candidates)
    for start in range(0, len(values), 900):
        chunk = values[start : start + 900]
        taken |= set(
            # Blank keys left out: the unique index covers only the others.
            publication.objects.exclude(cite_key="")
            .annotate(key=Lower("cite_key"))
            .filter(key__in=chunk)
            .order_by()
            .values_list("key", flat=True)
        )
    return taken


def report() -> str:
    """After a rebuild (which assigned them): how many works have a key."""
    count = Publication.objects.exclude(cite_key="").count()
    return f"{count} publications have a citation key."
