"""Cached results that every write to the directory invalidates.

All keys carry a data version; any save or delete of a watched model (each app
names its models from its AppConfig.ready()) bumps it, so stale entries are simply
never read again (and expire on their own).

Each process may hold a cache of its own (local memory, without CACHE_URL), and
writes come from other processes too (other web workers, management commands): the
version is therefore the cache's counter plus a counter in a small file every
process on the host reads (`DATA_VERSION_FILE`, in var/; none with Redis, which
shares the counter itself), so a write anywhere makes every worker's entries stale
at its next read, for the price of reading a few bytes.

A bump that cannot reach the cache (Redis down) is not lost: every process whose
cache calls failed advances the version when Redis answers again, before it reads
anything from it (`core.cache_backend.on_recovery`), so entries cached before the
outage are never served after it.
"""

import fcntl
import hashlib
import json
import logging
import os
import threading
from collections.abc import Callable
from typing import Any

from django.conf import settings
from django.core.cache import cache
from django.core.paginator import Paginator
from django.db import connection, models, transaction
from django.db.models.signals import m2m_changed, post_delete, post_save
from django.utils.functional import cached_property

from core.cache_backend import on_recovery

VERSION_KEY = "directory:data-version"
TIMEOUT = 600

logger = logging.getLogger(__name__)
# The highest shared count this process has read: a file removed (var/ cleaned)
# counts from 0 again, and the version must still never go back.
_shared_seen = 0
# Whether this thread wrote since it last counted a write in the shared file.
_unshared = threading.local()


def data_version() -> int:
    version = cache.get(VERSION_KEY)
    if version is None:
        cache.add(VERSION_KEY, 1, timeout=None)
        version = cache.get(VERSION_KEY, 1)
    return version + _shared_version()


def bump() -> None:
    _advance()
    # Other processes see a write once it is committed: one shared count per
    # commit, however many rows the transaction saved.
    committed = not transaction.get_connection().in_atomic_block
    if committed and getattr(_unshared, "write", False):
        _unshared.write = False
        _advance_shared()
    schedule_warm_up()


def _shared_version() -> int:
    global _shared_seen
    if settings.DATA_VERSION_FILE is None:
        return 0
    try:
        shared = int(settings.DATA_VERSION_FILE.read_bytes() or 0)
    except (OSError, ValueError):
        shared = 0
    if shared < _shared_seen:
        try:
            cache.incr(VERSION_KEY, _shared_seen)
        except ValueError:
            cache.set(VERSION_KEY, _shared_seen + 1, timeout=None)
    _shared_seen = shared
    return shared


def _advance_shared() -> None:
    """Count a write in the file every process reads; never fail the write."""
    path = settings.DATA_VERSION_FILE
    if path is None:
        return
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        with open(path.with_name(path.name + ".lock"), "a") as lock:
            fcntl.flock(lock, fcntl.LOCK_EX)
            try:
                count = int(path.read_bytes() or 0)
            except (FileNotFoundError, ValueError):
                count = 0
            # Readers see the old count or the new one, never half a file.
            written = path.with_name(f"{path.name}.{os.getpid()}")
            written.write_bytes(b"%d" % (count + 1))
            os.replace(written, path)
    except OSError as exc:
        logger.warning("The data version could not be shared: %s", exc)


def _advance() -> None:
    try:
        cache.incr(VERSION_KEY)
    except ValueError:  # not set yet, evicted, or the cache is unreachable
        cache.set(VERSION_KEY, data_version() + 1, timeout=None)


# Writes this process made while the cache was down did not bump the version.
on_recovery(_advance)


def invalidate() -> None:
    """Start a new data version now, and again when the transaction commits."""
    _unshared.write = True
    bump()
    # A read that raced the transaction saw the old rows and may have cached them
    # under the new version: the second bump leaves that entry behind.
    transaction.on_commit(bump)


def _key(version: int, parts: list[Any]) -> str:
    digest = hashlib.sha256(json.dumps(parts, sort_keys=True, default=str).encode())
    return f"directory:{version}:{digest.hexdigest()}"


def remember(parts: list[Any], compute: Callable[[], Any]) -> Any:
    """The cached value for these key parts, computed once per data version."""
    key = _key(data_version(), parts)
    value = cache.get(key)
    if value is None:
        value = compute()
        cache.set(key, value, TIMEOUT)
    return value


def recall(parts: list[Any]) -> Any:
    """The value `remember` cached for these key parts, or None; computes nothing."""
    return cache.get(_key(data_version(), parts))


def remember_each(
    parts: dict[str, list[Any]], compute: Callable[[list[str]], dict[str, Any]]
) -> dict[str, Any]:
    """`remember` for several values at once: one cache round trip, and `compute`
    is given only the names whose values are not cached yet."""
    if not parts:
        return {}
    version = data_version()
    keys = {name: _key(version, key_parts) for name, key_parts in parts.items()}
    found = cache.get_many(keys.values())
    values = {name: found[key] for name, key in keys.items() if key in found}
    missing = [name for name in parts if name not in values]
    if missing:
        computed = compute(missing)
        cache.set_many({keys[name]: computed[name] for name in missing}, TIMEOUT)
        values.update(computed)
    return values


class CountedPaginator(Paginator):
    """A Paginator that remembers its count under `key` (see `remember`)."""

    def __init__(self, object_list, per_page, *, key: list | None = None, **kwargs):
        super().__init__(object_list, per_page, **kwargs)
        self.key = key

    @cached_property
    def count(self) -> int:
        counted = Paginator.count.func
        if self.key is None:
            return counted(self)
        return remember(["count", *self.key], lambda: counted(self))


def watch(*watched: type[models.Model]) -> None:
    """Start a new data version on every save, delete or many-to-many change of
    these models (their own many-to-many tables included)."""
    for model in watched:
        label = model._meta.label
        post_save.connect(_saved, sender=model, dispatch_uid=f"cache:save:{label}")
        post_delete.connect(_saved, sender=model, dispatch_uid=f"cache:delete:{label}")
        for field in model._meta.local_many_to_many:
            through = field.remote_field.through
            m2m_changed.connect(
                _linked, sender=through, dispatch_uid=f"cache:m2m:{through._meta.label}"
            )


def _saved(sender, **kwargs) -> None:
    invalidate()


def _linked(sender, action: str, **kwargs) -> None:
    if action.startswith("post_"):
        invalidate()


# Counting every facet over a whole directory is the slowest thing a visitor can
# ask for: after a committed write, one background thread per process runs the
# registered warm-ups (the search app counts the unfiltered lists' facets again),
# instead of the next visitor. Writes that arrive meanwhile make it go round once
# more rather than start another thread.
_warm_ups: list[Callable[[], None]] = []
_lock = threading.Lock()
_again = False
last_warm_up: threading.Thread | None = None


def warm_up_with(function: Callable[[], None]) -> None:
    """Run `function` in the background after each committed write (if enabled)."""
    if function not in _warm_ups:
        _warm_ups.append(function)


def schedule_warm_up() -> None:
    if settings.WARM_CACHE_AFTER_WRITE:
        transaction.on_commit(_start_warm_up)


def _start_warm_up() -> None:
    global _again, last_warm_up
    with _lock:
        _again = True
        if last_warm_up is not None and last_warm_up.is_alive():
            return
        last_warm_up = threading.Thread(target=_warm_up, name="cache-warm-up")
        last_warm_up.daemon = True
        last_warm_up.start()


def _warm_up() -> None:
    global _again
    try:
        while True:
            with _lock:
                if not _again:
                    return
                _again = False
            for function in _warm_ups:
                function()
    finally:
        connection.close()
