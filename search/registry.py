"""The searchable kinds of record: each app registers its own from AppConfig.ready()."""

from collections import defaultdict
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass

from django.db import models

from search.documents import Document
from search.reasons import Source

Builder = Callable[[Iterable[int], dict[int, str]], Iterator[Document]]
Sources = Callable[[list[int]], dict[int, list[Source]]]


@dataclass(frozen=True)
class Searchable:
    """A kind of record, the model holding its documents, and how to build them.

    `build(ids, topic_texts)` yields the documents of those records that exist;
    `sources(ids)`, when given, what each record is found by, to say why it
    matched (see search.reasons).
    """

    kind: str
    model: type[models.Model]
    document: type[models.Model]
    build: Builder
    sources: Sources | None = None


_searchables: dict[str, Searchable] = {}


def register(
    kind: str,
    model: type[models.Model],
    document: type[models.Model],
    build: Builder,
    sources: Sources | None = None,
) -> None:
    _searchables[kind] = Searchable(kind, model, document, build, sources)


def searchables() -> dict[str, Searchable]:
    """Every registered kind, in the order their apps registered them."""
    return _searchables


def searchable_for(model: type[models.Model]) -> Searchable:
    for searchable in _searchables.values():
        if searchable.model._meta.label == model._meta.label:
            return searchable
    raise LookupError(f"{model._meta.label} is not searchable")


# What other tables derive from a kind's documents: told which live records were
# just re-indexed, and asked to recompute after a rebuild (returning a line to report).
_after_index: dict[str, list[Callable[[set[int]], None]]] = defaultdict(list)
_after_rebuild: dict[str, list[Callable[[], str]]] = defaultdict(list)


def derive(
    kind: str,
    *,
    after_index: Callable[[set[int]], None],
    after_rebuild: Callable[[], str],
) -> None:
    """Keep a table derived from the records of `kind` in step with them."""
    if after_index not in _after_index[kind]:
        _after_index[kind].append(after_index)
    if after_rebuild not in _after_rebuild[kind]:
        _after_rebuild[kind].append(after_rebuild)


def after_index_hooks(kind: str) -> list[Callable[[set[int]], None]]:
    return _after_index.get(kind, [])


def after_rebuild_hooks(kind: str) -> list[Callable[[], str]]:
    return _after_rebuild.get(kind, [])
