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
from typing import Any

from django.core.cache.backends.redis import RedisCache, RedisCacheClient
from redis.exceptions import RedisError

logger = logging.getLogger("core.cache")

_FAILURES = (RedisError, OSError)
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


def _guarded(name: str, fallback: Callable[..., Any]) -> Callable[..., Any]:
    method = getattr(RedisCacheClient, name)

    def call(self: "GuardedClient", *args: Any) -> Any:
        breaker = self.breaker
        if breaker.is_open or (breaker.needs_recovery and not breaker.recover()):
            return fallback(*args)
        try:
            return method(self, *args)
        except _FAILURES as error:
            breaker.trip(error)
            return fallback(*args)

    call.__name__ = name
    return call


def _not_found(key: str, delta: int) -> int:
    raise ValueError(f"Key '{key}' not reachable: the cache is unavailable.")


class GuardedClient(RedisCacheClient):
    def __init__(self, servers, *, breaker: Breaker, **options) -> None:
        super().__init__(servers, **options)
        self.breaker = breaker

    add = _guarded("add", lambda key, value, timeout: False)
    get = _guarded("get", lambda key, default: default)
    set = _guarded("set", lambda key, value, timeout: None)
    touch = _guarded("touch", lambda key, timeout: False)
    delete = _guarded("delete", lambda key: False)
    get_many = _guarded("get_many", lambda keys: {})
    has_key = _guarded("has_key", lambda key: False)
    incr = _guarded("incr", _not_found)
    set_many = _guarded("set_many", lambda data, timeout: None)
    delete_many = _guarded("delete_many", lambda keys: None)
    clear = _guarded("clear", lambda: False)


def _without_password(location: str) -> str:
    """The location as logs may show it."""
    return re.sub(r"//[^@/]*@", "//", location)


class ResilientRedisCache(RedisCache):
    """RedisCache whose operations never raise because Redis is unreachable.

    OPTIONS: `retry_seconds` (how long the breaker stays open) besides redis-py's
    own connection options (`socket_timeout`, `socket_connect_timeout`).
    """

    def __init__(self, server, params) -> None:
        options = dict(params.get("OPTIONS", {}))
        retry_seconds = float(options.pop("retry_seconds", 5))
        super().__init__(server, {**params, "OPTIONS": options})
        self.breaker = breaker_for(_without_password(str(server)), retry_seconds)
        self._class = GuardedClient
        self._options = {**self._options, "breaker": self.breaker}

    def status(self) -> dict:
        """The cache's state for /readyz: a round trip unless the breaker is open."""
        if not self.breaker.is_open:
            started = time.perf_counter()
            try:
                self._cache.get_client(write=False).ping()
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
