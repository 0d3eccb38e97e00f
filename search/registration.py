"""How an app makes its records searchable, from its AppConfig.ready().

`searchable(...)` names a kind of record, its document model and the function that
builds its documents; the rules say which other writes make documents stale:
`reindex_on(Person, "event", events_of_person)` re-indexes the events a person
appears in whenever the person is saved. This package never names a domain model.
"""

from collections.abc import Callable, Iterable
from typing import Any

from django.apps import AppConfig
from django.db import models
from django.db.models.signals import m2m_changed, post_delete, post_save, pre_delete

from core import cache
from search import evidence, registry
from search.evidence import Evidence as Evidence  # for the apps' builders
from search.indexing import mark_deleting, schedule, unmark_deleting
from search.models import SearchDocument

Ids = Callable[[Any], Iterable[int | None]]

# The models whose writes some rule follows: their bulk writes (which send no
# signals) must schedule the re-index themselves (tests/search/test_write_paths.py).
_followed: dict[str, type[models.Model]] = {}


def own_pk(instance: models.Model) -> list[int]:
    return [instance.pk]


def watch_models(
    app_config: AppConfig, derived: Iterable[type[models.Model]] = ()
) -> None:
    """Have the cache watch every model of the app but its search documents and
    the other `derived` tables, which are computed from the others."""
    skipped = tuple(derived)
    cache.watch(
        *(
            m
            for m in app_config.get_models()
            if not issubclass(m, SearchDocument) and m not in skipped
        )
    )


def searchable(
    kind: str,
    model: type[models.Model],
    document: type[models.Model],
    build: registry.Builder,
    sources: registry.Sources | None = None,
    passages: evidence.Builder | None = None,
) -> None:
    """Register a kind of record: its documents follow its saves and deletes.
    With `passages`, its records are ranked by their evidence when searching by
    meaning (search.evidence)."""
    registry.register(kind, model, document, build, sources)
    if passages is not None:
        evidence.register(kind, passages)
    reindex_on(model, kind)

    # A deletion cascades to related rows first, whose own rules would index the
    # record again; it is indexed as gone only when it is.
    def before_delete(sender, instance, **kwargs) -> None:
        mark_deleting(kind, instance.pk)

    def after_delete(sender, instance, **kwargs) -> None:
        unmark_deleting(kind, instance.pk)

    label = model._meta.label
    pre_delete.connect(
        before_delete, sender=model, weak=False, dispatch_uid=f"search:{label}:pre"
    )
    post_delete.connect(
        after_delete, sender=model, weak=False, dispatch_uid=f"search:{label}:post"
    )


def reindex_on(
    sender: type[models.Model],
    kind: str,
    ids: Ids = own_pk,
    *,
    deleted: bool = True,
    named_before_delete: bool = False,
    saved: bool = True,
) -> None:
    """After a save (unless `saved` is False) and a delete (unless `deleted` is
    False) of a `sender`, re-index the records of `kind` that `ids(instance)` names.
    With `named_before_delete`, a delete's records are named before it cascades
    (when `ids` reads links that go with it, or links it empties without a signal:
    on_delete=SET_NULL) and re-indexed after it."""

    def handler(sender, instance, **kwargs) -> None:
        schedule(kind, ids(instance))

    _followed[sender._meta.label] = sender
    uid = f"search:{kind}:{sender._meta.label}:{ids.__module__}.{ids.__qualname__}"
    if saved:
        post_save.connect(
            handler, sender=sender, weak=False, dispatch_uid=f"{uid}:save"
        )
    if deleted and named_before_delete:
        # Kept on the instance: a delete that fails leaves nothing behind.
        attribute = f"_reindex_{uid}"

        def before(sender, instance, **kwargs) -> None:
            setattr(instance, attribute, list(ids(instance)))

        def after(sender, instance, **kwargs) -> None:
            schedule(kind, getattr(instance, attribute, ()))

        pre_delete.connect(before, sender=sender, weak=False, dispatch_uid=f"{uid}:pre")
        post_delete.connect(
            after, sender=sender, weak=False, dispatch_uid=f"{uid}:delete"
        )
    elif deleted:
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

    _followed[through._meta.label] = through
    name = f"{ids.__module__}.{ids.__qualname__}" if ids else "owners"
    m2m_changed.connect(
        handler,
        sender=through,
        weak=False,
        dispatch_uid=f"search:{kind}:{through._meta.label}:{name}",
    )


def reindex_on_link_targets(through: type[models.Model], kind: str) -> None:
    """After a change to a many-to-many table, re-index the records of `kind` on
    its target side that were linked or unlinked (`Event.people.through`: the
    people added to or removed from an event, from either side)."""
    source, target = (
        f for f in through._meta.get_fields() if f.many_to_one and f.concrete
    )
    attribute = f"_cleared_{kind}_{through._meta.label}"
    _followed[through._meta.label] = through

    def handler(sender, instance, action, reverse, pk_set, **kwargs) -> None:
        if reverse:
            if action.startswith("post_"):
                schedule(kind, [instance.pk])
        elif action == "pre_clear":
            # The links are gone after the clear: note whom they named now.
            linked = through.objects.filter(**{source.attname: instance.pk})
            setattr(
                instance, attribute, set(linked.values_list(target.attname, flat=True))
            )
        elif action == "post_clear":
            schedule(kind, getattr(instance, attribute, ()))
        elif action.startswith("post_"):
            schedule(kind, pk_set or ())

    m2m_changed.connect(
        handler,
        sender=through,
        weak=False,
        dispatch_uid=f"search:{kind}:{through._meta.label}:targets",
    )


def followed_models() -> list[type[models.Model]]:
    """The models some re-index rule follows, by their signals."""
    return list(_followed.values())
