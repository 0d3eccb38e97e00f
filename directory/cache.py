"""Cached results that every write to the directory invalidates.

All keys carry a data version; any save or delete in the directory's apps bumps
it, so stale entries are simply never read again (and expire on their own).
"""

import hashlib
import json
from collections.abc import Callable
from typing import Any

from django.core.cache import cache
from django.db import transaction

VERSION_KEY = "directory:data-version"
APPS = {"directory", "people", "publications", "events"}
TIMEOUT = 600


def data_version() -> int:
    version = cache.get(VERSION_KEY)
    if version is None:
        cache.add(VERSION_KEY, 1, timeout=None)
        version = cache.get(VERSION_KEY, 1)
    return version


def bump() -> None:
    try:
        cache.incr(VERSION_KEY)
    except ValueError:  # not set yet, or evicted
        cache.set(VERSION_KEY, data_version() + 1, timeout=None)


def remember(parts: list[Any], compute: Callable[[], Any]) -> Any:
    """The cached value for these key parts, computed once per data version."""
    digest = hashlib.sha256(json.dumps(parts, sort_keys=True, default=str).encode())
    key = f"directory:{data_version()}:{digest.hexdigest()}"
    value = cache.get(key)
    if value is None:
        value = compute()
        cache.set(key, value, TIMEOUT)
    return value


def changed(sender, **kwargs) -> None:
    """Invalidate on any write to the directory's models."""
    if sender._meta.app_label not in APPS or sender._meta.model_name.endswith(
        "document"
    ):
        return
    if kwargs.get("action", "post_").startswith("pre_"):
        return
    bump()
    # Again after commit, so a read that raced the transaction cannot keep stale data.
    transaction.on_commit(bump)


def connect() -> None:
    from django.db.models.signals import m2m_changed, post_delete, post_save

    for signal in (post_save, post_delete, m2m_changed):
        signal.connect(changed, dispatch_uid=f"directory-cache-{signal}")
