"""The searchable kinds of record: each app registers its own from AppConfig.ready()."""

from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass

from django.db import models

from search.documents import Document

Builder = Callable[[Iterable[int], dict[int, str]], Iterator[Document]]


@dataclass(frozen=True)
class Searchable:
    """A kind of record, the model holding its documents, and how to build them.

    `build(ids, topic_texts)` yields the documents of those records that exist.
    """

    kind: str
    model: type[models.Model]
    document: type[models.Model]
    build: Builder


_searchables: dict[str, Searchable] = {}


def register(
    kind: str,
    model: type[models.Model],
    document: type[models.Model],
    build: Builder,
) -> None:
    _searchables[kind] = Searchable(kind, model, document, build)


def searchables() -> dict[str, Searchable]:
    """Every registered kind, in the order their apps registered them."""
    return _searchables


def searchable_for(model: type[models.Model]) -> Searchable:
    for searchable in _searchables.values():
        if searchable.model._meta.label == model._meta.label:
            return searchable
    raise LookupError(f"{model._meta.label} is not searchable")
