"""The shared cache on the machine's Redis: facet counts and rankings are stored
there, shared by every process that uses it, and a write anywhere invalidates
them (CACHE_URL=redis://…, as several app servers would be configured)."""

import os

import pytest
import redis
from django.conf import settings as django_settings
from django.core.cache import caches
from django.db import connection
from django.test import override_settings

from core.cache import VERSION_KEY, data_version
from publications.models import Publication
from search import facet_counts
from tests import factories

# The API throttle counts where the test settings say, whatever the cache.
THROTTLE = {"throttle": django_settings.CACHES["throttle"]}

REDIS_URL = os.environ.get("TEST_REDIS_URL", "redis://127.0.0.1:6379/15")

pytestmark = pytest.mark.django_db


@pytest.fixture
def redis_cache(worker_id):
    client = redis.Redis.from_url(REDIS_URL)
    try:
        client.ping()
    except redis.ConnectionError:
        pytest.skip(f"no Redis at {REDIS_URL} (.ci/run starts one)")
    prefix = f"test-{worker_id}-{os.getpid()}"
    settings = {
        "default": {
            "BACKEND": "django.core.cache.backends.redis.RedisCache",
            "LOCATION": REDIS_URL,
            "KEY_PREFIX": prefix,
        }
    }
    with override_settings(CACHES={**settings, **THROTTLE}):
        yield client, prefix
    for key in client.scan_iter(f"{prefix}:*"):
        client.delete(key)


def facet_count(client, year: int) -> int:
    body = client.get("/api/publications/", {"facets": "year"}).json()
    counts = {v["value"]: v["count"] for v in body["facets"]["year"]}
    return counts.get(str(year), 0)


def test_facet_counts_live_in_redis_and_writes_invalidate_them(client, redis_cache):
    redis_client, prefix = redis_cache
    assert type(caches["default"]).__name__ == "RedisCache"
    factories.publication(year=2024)

    assert facet_count(client, 2024) == 1
    keys = {k.decode() for k in redis_client.scan_iter(f"{prefix}:*")}
    assert any(VERSION_KEY in k for k in keys), keys
    cached = [k for k in keys if VERSION_KEY not in k]
    assert cached, "the facet counts were not stored in Redis"

    # Another process sees the same version; a write bumps it for everyone.
    version = data_version()
    stored = redis_client.get(next(k for k in keys if VERSION_KEY in k))
    assert int(stored) == caches["default"].get(VERSION_KEY)
    factories.publication(year=2024)
    assert data_version() > version
    assert facet_count(client, 2024) == 2


def test_a_write_by_another_process_is_seen(client, redis_cache):
    redis_client, prefix = redis_cache
    factories.publication(year=2023)

    assert facet_count(client, 2023) == 1
    # A row written behind this process's back (as another app server's write
    # would be: the row and its facet values, in the database), then that
    # server's bump of the version.
    table = Publication._meta.db_table
    with connection.cursor() as cursor:
        cursor.execute(f"UPDATE {table} SET year = 2022 WHERE year = 2023")
    ids = list(Publication.objects.values_list("pk", flat=True))
    facet_counts.store("publication", ids, set(ids))
    assert facet_count(client, 2023) == 1  # still the cached count: nothing bumped
    redis_client.incr(f"{prefix}:1:{VERSION_KEY}")
    assert facet_count(client, 2023) == 0
    assert facet_count(client, 2022) == 1
