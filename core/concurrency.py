"""Optimistic concurrency: an edit names the version it started from and fails if stale.

A record's version is its `updated_at`. The admin's change form carries it in a hidden
field; the API sends it as the ETag of a detail and honours `If-Match` on writes.
"""

import datetime

from django.db import models

EPOCH = datetime.datetime(1970, 1, 1, tzinfo=datetime.UTC)


def stale_message(model: type[models.Model]) -> str:
    return (
        f"This {model._meta.verbose_name} was changed by someone else since you "
        "opened it; reload it to see their changes, then make yours again."
    )


def is_versioned(model: type[models.Model]) -> bool:
    return any(f.name == "updated_at" for f in model._meta.concrete_fields)


def version(updated_at: datetime.datetime) -> str:
    """The version token of a saved record: microseconds since 1970, exact."""
    return str((updated_at - EPOCH) // datetime.timedelta(microseconds=1))


def etag(instance: models.Model) -> str:
    """A strong ETag that changes with every save of the record."""
    return f'"{instance.pk}-{version(instance.updated_at)}"'


def saved_version(instance: models.Model) -> str | None:
    """Lock the record's row until the transaction ends; its version (None if gone).

    On SQLite the lock is the write lock every transaction takes at BEGIN
    (transaction_mode IMMEDIATE); on PostgreSQL it is SELECT … FOR UPDATE.
    """
    stamps = list(
        type(instance)
        ._default_manager.select_for_update()
        .filter(pk=instance.pk)
        .order_by()
        .values_list("updated_at", flat=True)
    )
    return version(stamps[0]) if stamps else None
