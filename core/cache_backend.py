"""Django's Redis cache behind a circuit breaker: a cache that is down is a miss.

The cache only makes the site faster. When Redis refuses, times out or drops the
connection, every operation answers as a miss (`get` its default, `add` False,
`incr` ValueError…) and the breaker stays open for CACHE_RETRY_SECONDS, so requests
do not pay a connection attempt each; one warning is logged per interval. When the
breaker closes again, the hooks registered with `on_recovery` run first (the data
version is advanced there: writes made during the outage could not reach Redis).
"""

import logging
import re
import threading
import time
from collections.abc import Callable
from functools import partial
from typing import Any, TypeVar

from django.core.cache.backends.base import DEFAULT_TIMEOUT
from django.core.cache.backends.redis import RedisCache
from redis.exceptions import RedisError

logger = logging.getLogger("core.cache")

_FAILURES = (RedisError, OSError)
T = TypeVar("T")
_recovery_hooks: list[Callable[[], None]] = []


def on_recovery(hook: Callable[[], None]) -> None:
    """Run `hook` (through the cache) each time the cache answers after an outage."""
    if hook not in _recovery_hooks:
        _recovery_hooks.append(hook)


class Breaker:
    """One per process and Redis location, shared by the threads' cache objects."""

    def __init__(self, location: str, retry_seconds: float) -> None:
        self.location = location
        self.retry_seconds = retry_seconds
        self.open_until = 0.0
        self.needs_recovery = False
        self.warned_at: float | None = None
        self.last_error = ""
        self._recovering = threading.Lock()

    @property
    def is_open(self) -> bool:
        return time.monotonic() < self.open_until

    def trip(self, error: Exception) -> None:
        now = time.monotonic()
        self.open_until = now + self.retry_seconds
        self.needs_recovery = True
        self.last_error = type(error).__name__
        if self.warned_at is None or now - self.warned_at >= self.retry_seconds:
            self.warned_at = now
            logger.warning(
                "Cache at %s unavailable (%s: %s); serving without it for %s s",
                self.location,
                self.last_error,
                error,
                self.retry_seconds,
            )

    def recover(self) -> bool:
        """Run the recovery hooks once (one thread); whether the cache is usable."""
        if not self._recovering.acquire(blocking=False):
            return False  # another thread is recovering: a miss meanwhile
        try:
            if self.needs_recovery:
                self.needs_recovery = False
                for hook in _recovery_hooks:
                    hook()  # its cache calls trip the breaker again if Redis is down
                if not self.is_open:
                    self.warned_at = None
                    logger.warning("Cache at %s available again", self.location)
        finally:
            self._recovering.release()
        return not self.is_open


_breakers: dict[str, Breaker] = {}
_breakers_lock = threading.Lock()


def breaker_for(location: str, retry_seconds: float) -> Breaker:
    with _breakers_lock:
        if location not in _breakers:
            _breakers[location] = Breaker(location, retry_seconds)
        return _breakers[location]


def _without_password(location: str) -> str:
    """The location as logs may show it."""
    return re.sub(r"//[^@/]*@", "//", location)


class ResilientRedisCache(RedisCache):
    """RedisCache whose operations never raise because Redis is unreachable.

    Only the cache API Django documents is overridden, each method guarded by the
    breaker. OPTIONS: `retry_seconds` (how long the breaker stays open) besides
    redis-py's own connection options (`socket_timeout`, `socket_connect_timeout`).
    """

    def __init__(self, server, params) -> None:
        options = dict(params.get("OPTIONS", {}))
        retry_seconds = float(options.pop("retry_seconds", 5))
        super().__init__(server, {**params, "OPTIONS": options})
        self.breaker = breaker_for(_without_password(str(server)), retry_seconds)

    def attempt(self, operation: Callable[[], T], fallback: T) -> T:
        """The operation's answer, or `fallback` while Redis cannot be reached."""
        breaker = self.breaker
        if breaker.is_open or (breaker.needs_recovery and not breaker.recover()):
            return fallback
        try:
            return operation()
        except _FAILURES as error:
            breaker.trip(error)
            return fallback

    def add(self, key, value, timeout=DEFAULT_TIMEOUT, version=None) -> bool:
        return self.attempt(partial(super().add, key, value, timeout, version), False)

    def get(self, key, default=None, version=None) -> Any:
        return self.attempt(partial(super().get, key, default, version), default)

    def set(self, key, value, timeout=DEFAULT_TIMEOUT, version=None) -> None:
        self.attempt(partial(super().set, key, value, timeout, version), None)

    def touch(self, key, timeout=DEFAULT_TIMEOUT, version=None) -> bool:
        return self.attempt(partial(super().touch, key, timeout, version), False)

    def delete(self, key, version=None) -> bool:
        return self.attempt(partial(super().delete, key, version), False)

    def get_many(self, keys, version=None) -> dict:
        return self.attempt(partial(super().get_many, keys, version), {})

    def has_key(self, key, version=None) -> bool:
        return self.attempt(partial(super().has_key, key, version), False)

    def incr(self, key, delta=1, version=None) -> int:
        value = self.attempt(partial(super().incr, key, delta, version), None)
        if value is None:
            raise ValueError(f"Key '{key}' not reachable: the cache is unavailable.")
        return value

    def set_many(self, data, timeout=DEFAULT_TIMEOUT, version=None) -> list:
        # The keys not stored, as the cache API reports a failed insert.
        return self.attempt(
            partial(super().set_many, data, timeout, version), list(data)
        )

    def delete_many(self, keys, version=None) -> None:
        self.attempt(partial(super().delete_many, keys, version), None)

    def clear(self) -> bool:
        return self.attempt(super().clear, False)

    def status(self) -> dict:
        """The cache's state for /readyz: a round trip unless the breaker is open."""
        if not self.breaker.is_open:
            started = time.perf_counter()
            try:
                super().has_key("readyz")  # unguarded: Redis's own error if down
            except _FAILURES as error:
                self.breaker.trip(error)
            else:
                ms = round((time.perf_counter() - started) * 1000, 1)
                return {"status": "ok", "backend": "redis", "ping_ms": ms}
        return {
            "status": "down",
            "backend": "redis",
            "error": self.breaker.last_error,
            "retry_in_s": round(max(self.breaker.open_until - time.monotonic(), 0), 1),
        }
