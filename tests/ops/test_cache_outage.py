"""The shared cache failing under the site: Redis behind a proxy that is cut (refused
connections, or a network that swallows everything) and restored. Pages and the API
keep answering from the database, fast, and no stale page survives the outage."""

import logging
import os
import time

import pytest
import redis
from django.conf import settings as django_settings
from django.core.cache import caches
from django.test import override_settings

from core.cache import VERSION_KEY, data_version
from tests import factories
from tests.ops.faultproxy import HANG, REFUSE, FaultProxy

# The API throttle counts where the test settings say, whatever the cache.
THROTTLE = {"throttle": django_settings.CACHES["throttle"]}

REDIS_PORT = int(os.environ.get("TEST_REDIS_PORT", "6379"))
TIMEOUT = 0.05
RETRY_SECONDS = 1

pytestmark = pytest.mark.django_db


@pytest.fixture
def proxied_cache(worker_id):
    client = redis.Redis(port=REDIS_PORT, db=15)
    try:
        client.ping()
    except redis.ConnectionError:
        pytest.skip(f"no Redis on port {REDIS_PORT} (.ci/run starts one)")
    prefix = f"outage-{worker_id}-{os.getpid()}"
    with FaultProxy(REDIS_PORT) as proxy:
        settings = {
            "default": {
                "BACKEND": "core.cache_backend.ResilientRedisCache",
                "LOCATION": proxy.url("redis://127.0.0.1:{port}/15"),
                "KEY_PREFIX": prefix,
                "OPTIONS": {
                    "socket_connect_timeout": TIMEOUT,
                    "socket_timeout": TIMEOUT,
                    "retry_seconds": RETRY_SECONDS,
                },
            }
        }
        with override_settings(CACHES={**settings, **THROTTLE}):
            yield proxy, client, prefix
    for key in client.scan_iter(f"{prefix}:*"):
        client.delete(key)


def facet_count(client, year: int) -> int:
    response = client.get("/api/publications/", {"facets": "year"})
    assert response.status_code == 200
    counts = {v["value"]: v["count"] for v in response.json()["facets"]["year"]}
    return counts.get(str(year), 0)


def pages_answer(client) -> None:
    for url in ["/", "/people/", "/publications/?year=2024", "/api/people/"]:
        assert client.get(url).status_code == 200, url


@pytest.mark.parametrize("mode", [REFUSE, HANG])
def test_pages_answer_from_the_database_while_the_cache_is_cut(
    client, proxied_cache, mode
):
    proxy, _, _ = proxied_cache
    factories.publication(year=2024)
    assert facet_count(client, 2024) == 1  # connections to Redis are open now

    proxy.cut(mode)
    started = time.perf_counter()
    pages_answer(client)
    assert facet_count(client, 2024) == 1
    # One timed-out call opens the breaker; the rest do not wait for Redis (the
    # bound is loose: the machines here are shared).
    assert time.perf_counter() - started < 10
    assert caches["default"].status()["status"] == "down"

    proxy.restore()
    time.sleep(RETRY_SECONDS)
    assert facet_count(client, 2024) == 1
    # A call that outlasts the short timeout on a busy machine opens the breaker
    # again for a moment: the cache must be back within a few periods.
    deadline = time.monotonic() + 5 * RETRY_SECONDS
    while caches["default"].status()["status"] != "ok":
        assert time.monotonic() < deadline
        time.sleep(0.2)


def test_while_it_stays_down_nobody_waits_for_it_and_one_warning_is_logged(
    client, proxied_cache, caplog
):
    proxy, _, _ = proxied_cache
    proxy.cut(HANG)
    cache = caches["default"]
    with caplog.at_level(logging.WARNING, logger="core.cache"):
        started = time.perf_counter()
        assert cache.get("anything", "missed") == "missed"
        first = time.perf_counter() - started
        started = time.perf_counter()
        for _ in range(200):
            assert cache.get("anything") is None
            cache.set("anything", 1)
            assert cache.get_many(["a", "b"]) == {}
        rest = time.perf_counter() - started
    assert TIMEOUT * 0.8 < first < 1.0  # one timeout, not a retry loop
    assert rest < 0.5  # 600 calls answered by the open breaker, none by Redis
    warnings = [r for r in caplog.records if r.levelno == logging.WARNING]
    assert len(warnings) == 1
    assert "unavailable" in warnings[0].getMessage()


def test_a_write_made_while_the_cache_was_down_is_seen_once_it_is_back(
    client, proxied_cache
):
    proxy, redis_client, prefix = proxied_cache
    factories.publication(year=2024)
    assert facet_count(client, 2024) == 1  # cached in Redis under this version
    before = data_version()
    stored = redis_client.get(f"{prefix}:1:{VERSION_KEY}")

    proxy.cut(REFUSE)
    factories.publication(year=2024)  # its bump of the version cannot reach Redis
    assert facet_count(client, 2024) == 2  # from the database meanwhile
    assert redis_client.get(f"{prefix}:1:{VERSION_KEY}") == stored

    proxy.restore()  # Redis kept everything, the old count included
    time.sleep(RETRY_SECONDS)
    assert facet_count(client, 2024) == 2
    assert data_version() > before


def test_a_cache_that_lost_everything_starts_again(client, proxied_cache):
    proxy, redis_client, prefix = proxied_cache
    factories.publication(year=2024)
    assert facet_count(client, 2024) == 1
    proxy.cut(REFUSE)
    for key in redis_client.scan_iter(f"{prefix}:*"):
        redis_client.delete(key)  # as a restarted Redis without persistence
    proxy.restore()
    time.sleep(RETRY_SECONDS)
    factories.publication(year=2024)
    assert facet_count(client, 2024) == 2


def test_the_logged_location_leaves_the_password_out(caplog):
    settings = {
        "default": {
            "BACKEND": "core.cache_backend.ResilientRedisCache",
            "LOCATION": "redis://user:s3cret@127.0.0.1:1/0",
            "OPTIONS": {"socket_connect_timeout": TIMEOUT, "retry_seconds": 60},
        }
    }
    with (
        override_settings(CACHES={**settings, **THROTTLE}),
        caplog.at_level(logging.WARNING),
    ):
        assert caches["default"].get("key", "missed") == "missed"
    assert "redis://127.0.0.1:1/0" in caplog.text
    assert "s3cret" not in caplog.text
