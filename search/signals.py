"""Which writes make which documents stale: each app declares its own rules here.

`reindex_on(Person, "event", events_of_person)` re-indexes the events a person
appears in whenever the person is saved; the apps make these calls from their
AppConfig.ready(), so this package never names a domain model.
"""

from collections.abc import Callable, Iterable
from typing import Any

from django.db import models
from django.db.models.signals import m2m_changed, post_delete, post_save

from search.indexing import schedule

Ids = Callable[[Any], Iterable[int | None]]


def own_pk(instance: models.Model) -> list[int]:
    return [instance.pk]


def reindex_on(
    sender: type[models.Model],
    kind: str,
    ids: Ids = own_pk,
    *,
    deleted: bool = True,
) -> None:
    """After a save (and a delete, unless `deleted` is False) of a `sender`,
    re-index the records of `kind` that `ids(instance)` names."""

    def handler(sender, instance, **kwargs) -> None:
        schedule(kind, ids(instance))

    uid = f"search:{kind}:{sender._meta.label}:{ids.__module__}.{ids.__qualname__}"
    post_save.connect(handler, sender=sender, weak=False, dispatch_uid=f"{uid}:save")
    if deleted:
        post_delete.connect(
            handler, sender=sender, weak=False, dispatch_uid=f"{uid}:delete"
        )


def reindex_on_link(
    through: type[models.Model],
    kind: str,
    ids: Callable[[set[int]], Iterable[int | None]] | None = None,
) -> None:
    """After a change to a many-to-many table, re-index the records of `kind` that
    `ids(owners)` names (default: the owners themselves), where the owners are the
    records on the forward side of the relation that changed."""

    def handler(sender, instance, action, reverse, pk_set, **kwargs) -> None:
        if not action.startswith("post_"):
            return
        if reverse and action == "post_clear":
            return  # the related side's own save re-indexes what it needs
        owners = set(pk_set or ()) if reverse else {instance.pk}
        schedule(kind, ids(owners) if ids else owners)

    name = f"{ids.__module__}.{ids.__qualname__}" if ids else "owners"
    m2m_changed.connect(
        handler,
        sender=through,
        weak=False,
        dispatch_uid=f"search:{kind}:{through._meta.label}:{name}",
    )
