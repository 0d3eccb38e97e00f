"""What a search document is, and the helpers the apps' document builders share.

Builders read plain values in a few queries per chunk of records (no model
instances), so that rebuilding a directory of 100,000 papers takes seconds.
"""

from collections import defaultdict
from collections.abc import Iterable, Iterator
from typing import NamedTuple

from core.bulk import chunks
from core.cache import remember
from core.lib.cjk import segment
from core.models import Topic, TopicClosure

CHUNK = 2000


class Document(NamedTuple):
    """A record's text in its four weighted parts (see search.models.SearchDocument)."""

    pk: int
    heading: str
    topics: str
    body: str
    extra: str


# The text columns of a document model, heading first.
TEXT_FIELDS = Document._fields[1:]


def segmented(document: Document) -> Document:
    """The document as it is indexed: its Chinese split into words (core.lib.cjk).

    The stored columns hold this text, so that the FTS5 triggers, the bulk paths
    and the PostgreSQL vectors all index what the query parser looks for; the
    engines' snippets take the separators out again (search.engines.highlight).
    """
    return document._replace(**{f: segment(getattr(document, f)) for f in TEXT_FIELDS})


def topic_texts() -> dict[int, str]:
    """For every topic: its name, aliases and the names of the topics above it."""
    topics = dict(Topic.objects.values_list("pk", "name"))
    aliases = dict(Topic.objects.values_list("pk", "aliases"))
    ancestors: dict[int, list[int]] = defaultdict(list)
    for ancestor_id, descendant_id in TopicClosure.objects.order_by(
        "-depth"
    ).values_list("ancestor_id", "descendant_id"):
        ancestors[descendant_id].append(ancestor_id)
    texts = {}
    for pk, name in topics.items():
        names = [topics[a] for a in ancestors.get(pk, [pk]) if a in topics]
        extra = [
            line.strip() for line in (aliases[pk] or "").splitlines() if line.strip()
        ]
        texts[pk] = " · ".join([*(names or [name]), *extra])
    return texts


def cached_topic_texts() -> dict[int, str]:
    """`topic_texts`, read once per data version (for pages, not for indexing)."""
    return remember(["topic-texts"], topic_texts)


def join(*parts: object) -> str:
    """The non-empty parts, one per line."""
    return "\n".join(str(p) for p in parts if p)


def id_chunks(ids: Iterable[int]) -> Iterator[list[int]]:
    """The distinct ids in ascending order, in chunks a builder reads at once."""
    return chunks(sorted(set(ids)), CHUNK)


def within(field: str, chunk: list[int]) -> dict[str, object]:
    """The lookup for a chunk of sorted ids: a range when they run without gaps (a
    full rebuild), which spares the ORM preparing thousands of parameters."""
    if chunk[-1] - chunk[0] + 1 == len(chunk):
        return {f"{field}__gte": chunk[0], f"{field}__lte": chunk[-1]}
    return {f"{field}__in": chunk}


def grouped(rows: Iterable[tuple]) -> dict[int, list[tuple]]:
    """Rows keyed by their first value (the owning record's id)."""
    groups: dict[int, list[tuple]] = defaultdict(list)
    for row in rows:
        groups[row[0]].append(row[1:])
    return groups
