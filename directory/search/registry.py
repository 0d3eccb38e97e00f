"""The searchable kinds of record: their model, document model and document builder."""

from collections.abc import Callable
from dataclasses import dataclass
from functools import cache

from django.apps import apps
from django.db import models

from directory.search import documents


@dataclass(frozen=True)
class Resource:
    kind: str
    model_label: str
    document_label: str
    build: Callable

    @property
    def model(self) -> type[models.Model]:
        return apps.get_model(self.model_label)

    @property
    def document(self) -> type[models.Model]:
        return apps.get_model(self.document_label)


@cache
def resources() -> dict[str, Resource]:
    return {
        r.kind: r
        for r in (
            Resource(
                "person",
                "people.Person",
                "people.PersonSearchDocument",
                documents.person_documents,
            ),
            Resource(
                "publication",
                "publications.Publication",
                "publications.PublicationSearchDocument",
                documents.publication_documents,
            ),
            Resource(
                "event",
                "events.Event",
                "events.EventSearchDocument",
                documents.event_documents,
            ),
        )
    }


def resource_for(model: type[models.Model]) -> Resource:
    for resource in resources().values():
        if resource.model_label == model._meta.label:
            return resource
    raise LookupError(f"{model._meta.label} is not searchable")
