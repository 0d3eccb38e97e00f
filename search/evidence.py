"""Expert finding: people ranked by the evidence of their passages, not by one
long document (the document-centric "Model 2" of Balog et al., TREC Enterprise's
expert search task).

An app names the passages of each of its records when it registers the kind
(`searchable(..., passages=...)`): for a member, each research interest and
area, each paper, talk and news item, each experience, project or award line,
with a weight for how strongly it belongs to them (an interest or a
first-authored paper 1, the tenth of forty authors far less). A paper's or a
talk's passage is that record's own vector (search.semantic); the others are
embedded here, kept in step on write, only while search by meaning is on.

A query scores every passage in one pass over the vectors, and the passages of
the likely owners by words too:

    passage score = weight × (KEYWORD × share of the query's words it holds
                              + MEANING × closeness in meaning, 0–1)
    owner score   = Σ DECAY[i] × passage score of the owner's i-th best passage

Only the best few passages count, so the member with the most text does not win
by volume; a paper on a subject says more than a line that mentions it, because
a paper is weighted and its vector is about nothing else. Reasons name the
passages that carried the score.
"""

import heapq
import threading
from collections import defaultdict
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass

import numpy as np
from django.db.models import Count, Max, Q

from core.bulk import chunks
from core.cache import remember
from search import semantic
from search.models import Passage
from search.query import Query
from search.reasons import Matcher
from search.registry import searchables

# The weights of an owner's best, second and third passage; the rest count nothing.
DECAY = (1.0, 0.5, 0.25)
KEYWORD = 1.0
MEANING = 1.0
# Closeness in meaning: 1 for the query's best passage, falling to 0 at SPREAD
# below it (or below semantic.DISTINCT over the background, for any passage).
SPREAD = 0.06
# An owner is found by meaning alone when a passage of theirs is this close to
# the query's closest passage (the others are ranked, when found by words).
NEAR = 0.035
# Texts shorter than this are matched by words only: "Sports" or "Member" is close
# in meaning to every query and says nothing of what its owner works on.
SHORTEST = 30
# What the order of the owners found by words adds: this much to the first,
# half of it to the second…: the keyword engine weighs where words are (a name,
# a topic) as passages alone cannot.
RANKED_BY_WORDS = 0.5
# At most this many passages close in meaning count for a query.
MOST_PASSAGES = 500
# How many owners, best first by words and by meaning, have their passages
# matched by words.
CANDIDATES = 20


@dataclass(frozen=True)
class Evidence:
    """A passage as an app's builder yields it. `text` is matched by words and
    (unless `embed` is False: a name means nothing to the model) embedded;
    `record` is ("publication", id) for a record's passage, whose vector is that
    record's own and whose words are found by the record's own search."""

    owner: int
    label: str
    shown: str
    text: str = ""
    weight: float = 1.0
    record: tuple[str, int] | None = None
    embed: bool = True


Builder = Callable[[Iterable[int]], Iterator[Evidence]]
_builders: dict[str, Builder] = {}


def register(kind: str, build: Builder) -> None:
    _builders[kind] = build


def registered(kind: str) -> bool:
    return kind in _builders


def store(kind: str, ids: Iterable[int], live: set[int]) -> int:
    """Replace the passages of these owners (none for those not `live`); only
    texts that changed are embedded again. Returns how many were embedded."""
    embedded = 0
    for chunk in chunks(sorted(set(ids)), 500):
        embedded += _store_chunk(kind, chunk, [pk for pk in chunk if pk in live])
    return embedded


def _store_chunk(kind: str, ids: list[int], live: list[int]) -> int:
    rows = Passage.objects.filter(kind=kind, owner_id__in=ids)
    held = {
        digest: (scale, bytes(vector))
        for digest, scale, vector in rows.filter(vector__isnull=False).values_list(
            "digest", "scale", "vector"
        )
    }
    passages = list(_builders[kind](live)) if live else []
    texts = [p.text for p in passages if _embedded(p)]
    digests = {text: semantic.digest(text) for text in texts}
    missing = sorted({t for t in texts if digests[t] not in held})
    for digest, scale, data in semantic.vectors(missing):
        held[digest] = (scale, data)
    rows.delete()
    Passage.objects.bulk_create(
        (_row(kind, p, digests, held) for p in passages), batch_size=1000
    )
    return len(missing)


def _embedded(p: Evidence) -> bool:
    return p.embed and p.record is None and len(p.text) >= SHORTEST


def _row(kind: str, p: Evidence, digests: dict, held: dict) -> Passage:
    digest = digests.get(p.text, "") if _embedded(p) else ""
    scale, vector = held.get(digest, (None, None))
    record_kind, record_id = p.record or ("", None)
    return Passage(
        kind=kind,
        owner_id=p.owner,
        label=p.label[:40],
        shown=p.shown[:300],
        text=p.text if p.record is None else "",
        weight=p.weight,
        record_kind=record_kind,
        record_id=record_id,
        digest=digest,
        scale=scale,
        vector=vector,
    )


def drop_missing(kind: str, live) -> None:
    Passage.objects.filter(kind=kind).exclude(owner_id__in=live.values("pk")).delete()


@dataclass(frozen=True)
class _Refs:
    """The passages that are another kind's records: their owners, weights and
    rows in that kind's matrix."""

    kind: str
    version: tuple
    pks: np.ndarray
    owners: np.ndarray
    weights: np.ndarray
    rows: np.ndarray


@dataclass(frozen=True)
class _Set:
    version: tuple
    own: "semantic.Matrix"  # ids: passage pks
    owners: np.ndarray
    weights: np.ndarray
    refs: tuple[_Refs, ...]


_sets: dict[str, _Set] = {}
_loading = threading.Lock()


def _version(kind: str) -> tuple:
    def ask() -> tuple:
        return tuple(
            Passage.objects.filter(kind=kind)
            .aggregate(
                n=Count("id"),
                last=Max("id"),
                own=Count("id", filter=Q(vector__isnull=False)),
            )
            .values()
        )

    # A passage may be a record of any other searchable kind.
    others = tuple(k for k in searchables() if k != kind)
    passages = (*remember(["passages", kind], ask), others)
    return passages, tuple(semantic.version_of(k) for k in others)


def _set(kind: str) -> _Set:
    version = _version(kind)
    held = _sets.get(kind)
    if held is not None and held.version == version:
        return held
    with _loading:
        rows = Passage.objects.filter(kind=kind).order_by("pk")
        own = rows.filter(vector__isnull=False).values_list(
            "pk", "scale", "vector", "owner_id", "weight"
        )
        ids, vectors, scales, owners, weights = semantic.read_vectors(
            own.iterator(chunk_size=5000), version[0][2], "i8", "f4"
        )
        matrix = semantic.Matrix.of(version, ids, vectors, scales)
        refs = tuple(_refs(kind, rows, k) for k in version[0][3])
        _sets[kind] = _Set(version, matrix, owners, weights, refs)
        return _sets[kind]


def _refs(kind: str, rows, record_kind: str) -> _Refs:
    matrix = semantic.matrix_of(record_kind)
    values = rows.filter(record_kind=record_kind).values_list(
        "pk", "owner_id", "weight", "record_id"
    )
    # Read row by row into arrays sized up front: hundreds of thousands of rows
    # as Python tuples at once would cost more than the arrays.
    size = values.count()
    pks, owners, records = (np.empty(size, dtype="i8") for _ in range(3))
    weights = np.empty(size, dtype="f4")
    count = 0
    for count, row in enumerate(values.iterator(chunk_size=5000), 1):
        if count > size:  # written since they were counted: next time
            count = size
            break
        i = count - 1
        pks[i], owners[i], weights[i], records[i] = row
    pks, owners, weights, records = (
        column[:count] for column in (pks, owners, weights, records)
    )
    at = np.searchsorted(matrix.ids, records)
    at = np.minimum(at, max(len(matrix.ids) - 1, 0))
    found = (matrix.ids[at] == records) if len(matrix.ids) else at < 0
    return _Refs(
        record_kind,
        matrix.version,
        pks[found],
        owners[found],
        weights[found],
        at[found],
    )


@dataclass(frozen=True)
class Meaning:
    """The passages close in meaning to a query: pks, owners, weights, closeness."""

    pks: np.ndarray
    owners: np.ndarray
    weights: np.ndarray
    closeness: np.ndarray


def meaning(kind: str, text: str) -> Meaning:
    held = _set(kind)
    query = semantic.query_vector(text)
    rows, scores = held.own.scored(query)
    parts = [(held.own.ids[rows], held.owners[rows], held.weights[rows], scores)]
    for refs in held.refs:
        matrix = semantic.matrix_of(refs.kind)
        if matrix.version != refs.version:
            _sets.pop(kind, None)  # its vectors changed: map the rows again
            return meaning(kind, text)
        found, found_scores = matrix.scored(query)
        full = np.full(len(matrix.ids), -np.inf, dtype=np.float32)
        full[found] = found_scores
        parts.append((refs.pks, refs.owners, refs.weights, full[refs.rows]))
    pks, owners, weights, scores = (
        np.concatenate(column) for column in zip(*parts, strict=True)
    )
    if not len(scores):
        return Meaning(pks, owners, weights, scores)
    floor = max(float(scores.max()) - SPREAD, semantic.DISTINCT)
    if len(scores) > MOST_PASSAGES:  # the closest only: each costs Python work
        cut = np.partition(scores, len(scores) - MOST_PASSAGES)[-MOST_PASSAGES]
        floor = max(floor, float(cut))
    near = scores > floor
    closeness = (scores[near] - floor) / SPREAD
    return Meaning(pks[near], owners[near], weights[near], closeness)


@dataclass(frozen=True)
class Ranking:
    """Owners best first, those with a passage near in meaning, and the passages
    that carried each one's score."""

    owners: list[int]
    near: list[int]
    carried: dict[int, list[int]]


def ranked(kind: str, query: Query, by_words: list[int]) -> Ranking:
    """Owners ranked by their evidence. `by_words`: the owners found by words,
    best first."""
    near = meaning(kind, query.text)
    scores: dict[tuple[int, int], float] = defaultdict(float)
    for pk, owner, weight, close in zip(
        near.pks.tolist(),
        near.owners.tolist(),
        near.weights.tolist(),
        near.closeness.tolist(),
        strict=True,
    ):
        scores[owner, pk] += weight * MEANING * close
    # Found by meaning: the owners of a passage within NEAR of the closest.
    close = set(near.owners[near.closeness >= 1 - NEAR / SPREAD].tolist())
    totals, _ = _tally(scores)
    near_owners = sorted(close, key=lambda o: (-totals[o], o))
    candidates = list(
        dict.fromkeys([*by_words[:CANDIDATES], *near_owners[:CANDIDATES]])
    )
    for owner, pk, weight, share in _word_shares(kind, query, candidates):
        scores[owner, pk] += weight * KEYWORD * share
    totals, carried = _tally(scores)
    for rank, owner in enumerate(by_words, 1):
        totals[owner] = totals.get(owner, 0.0) + RANKED_BY_WORDS / rank
    found = set(near_owners) | set(by_words)
    owners = sorted(found, key=lambda o: (-totals.get(o, 0.0), o))
    return Ranking(owners, near_owners, carried)


def _tally(
    scores: dict[tuple[int, int], float],
) -> tuple[dict[int, float], dict[int, list[int]]]:
    """Each owner's total (their best passages, DECAY-weighted) and those
    passages, best first."""
    by_owner: dict[int, list[tuple[float, int]]] = defaultdict(list)
    for (owner, pk), score in scores.items():
        if score > 0:
            by_owner[owner].append((score, -pk))
    totals, carried = {}, {}
    for owner, items in by_owner.items():
        best = heapq.nlargest(len(DECAY), items)
        totals[owner] = sum(d * s for d, (s, _) in zip(DECAY, best, strict=False))
        carried[owner] = [-pk for _, pk in best]
    return totals, carried


def _word_shares(kind: str, query: Query, owners: list[int]):
    """(owner, passage pk, weight, share of the query's words, squared) for the
    owners' passages that hold any of them; a record's passage by its title (its
    other words count through the owner's own search document)."""
    matcher = Matcher(query)
    wanted = len(matcher.stems) or 1
    rows = Passage.objects.filter(kind=kind, owner_id__in=owners).values_list(
        "pk", "owner_id", "weight", "text", "shown"
    )
    for pk, owner, weight, text, shown in rows:
        share = len(matcher.terms_in(text or shown)) / wanted
        if share:
            yield owner, pk, weight, share * share


def carried_passages(pks: Iterable[int]) -> dict[int, tuple[str, str]]:
    """The label and shown text of these passages."""
    return {
        pk: (label, shown)
        for pk, label, shown in Passage.objects.filter(pk__in=list(pks)).values_list(
            "pk", "label", "shown"
        )
    }
