"""The Redis cache backend: Django's cache API against the machine's Redis, and every
operation a miss, never an error, when Redis is not there."""

import os
import socket
import uuid

import pytest
import redis
from django.conf import settings as django_settings
from django.core.cache import caches
from django.core.cache.backends.redis import RedisCache
from django.test import override_settings

from core.cache_backend import ResilientRedisCache

# The API throttle counts where the test settings say, whatever the cache.
THROTTLE = {"throttle": django_settings.CACHES["throttle"]}

REDIS_URL = os.environ.get("TEST_REDIS_URL", "redis://127.0.0.1:6379/15")
# clear() empties a whole database: one no other test uses.
CLEARED_URL = "redis://127.0.0.1:6379/11"


def backend(location: str, **options) -> ResilientRedisCache:
    return ResilientRedisCache(
        location,
        {
            "KEY_PREFIX": f"backend-{uuid.uuid4().hex}",
            "OPTIONS": {
                "socket_connect_timeout": 0.2,
                "socket_timeout": 0.2,
                **options,
            },
        },
    )


def closed_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]  # nothing listens once the socket is closed


@pytest.fixture
def redis_cache():
    try:
        redis.Redis.from_url(REDIS_URL).ping()
    except redis.ConnectionError:
        pytest.skip(f"no Redis at {REDIS_URL} (.ci/run starts one)")
    cache = backend(REDIS_URL)
    yield cache
    cache.delete_many(["a", "b", "c", "n", "gone"])


@pytest.fixture
def down_cache():
    return backend(f"redis://127.0.0.1:{closed_port()}/0", retry_seconds=60)


def test_it_overrides_only_the_documented_cache_api():
    own = {name for name in vars(ResilientRedisCache) if not name.startswith("__")}
    private = {name for name in own if name.startswith("_")}
    assert not private
    overridden = own & set(dir(RedisCache))
    assert overridden == {
        "add",
        "get",
        "set",
        "touch",
        "delete",
        "get_many",
        "has_key",
        "incr",
        "set_many",
        "delete_many",
        "clear",
    }


def test_it_answers_every_operation_from_redis(redis_cache):
    cache = redis_cache
    assert cache.get("a", "missed") == "missed"
    cache.set("a", {"x": 1})
    assert cache.get("a") == {"x": 1}
    assert cache.add("a", 2) is False
    assert cache.add("b", 2) is True
    assert cache.has_key("b")
    assert cache.touch("b", 30) is True
    assert cache.set_many({"c": 3, "n": 10}) == []
    assert cache.get_many(["a", "c", "gone"]) == {"a": {"x": 1}, "c": 3}
    assert cache.incr("n") == 11
    assert cache.decr("n", 2) == 9
    with pytest.raises(ValueError):
        cache.incr("gone")
    assert cache.get_or_set("gone", "made") == "made"
    assert cache.delete("gone") is True
    cache.delete_many(["a", "b"])
    assert cache.get_many(["a", "b", "c"]) == {"c": 3}
    status = cache.status()
    assert status["status"] == "ok" and status["backend"] == "redis"


def test_clear_empties_its_redis_database(redis_cache):
    cache = backend(CLEARED_URL)
    cache.set("a", 1)
    assert cache.clear() is True
    assert cache.get("a") is None


def test_every_read_is_a_miss_when_redis_is_not_there(down_cache):
    cache = down_cache
    assert cache.get("a", "missed") == "missed"
    assert cache.get("a") is None
    assert cache.get_many(["a", "b"]) == {}
    assert cache.has_key("a") is False
    assert cache.get_or_set("a", "made") == "made"
    with pytest.raises(ValueError, match="unavailable"):
        cache.incr("a")


def test_every_write_is_dropped_quietly_when_redis_is_not_there(down_cache):
    cache = down_cache
    cache.set("a", 1)
    assert cache.add("a", 1) is False
    assert cache.touch("a") is False
    assert cache.delete("a") is False
    assert cache.set_many({"a": 1, "b": 2}) == ["a", "b"]
    cache.delete_many(["a", "b"])
    assert cache.clear() is False
    assert cache.get("a") is None
    status = cache.status()
    assert status["status"] == "down" and status["error"] == "ConnectionError"


@pytest.mark.django_db
def test_pages_answer_when_the_cache_url_is_a_closed_port(client):
    settings = {
        "default": {
            "BACKEND": "core.cache_backend.ResilientRedisCache",
            "LOCATION": f"redis://127.0.0.1:{closed_port()}/0",
            "OPTIONS": {"socket_connect_timeout": 0.2, "retry_seconds": 60},
        }
    }
    with override_settings(CACHES={**settings, **THROTTLE}, HEALTH_TOKEN="cache-probe"):
        assert isinstance(caches["default"], ResilientRedisCache)
        for url in ["/", "/people/", "/publications/", "/api/publications/"]:
            assert client.get(url).status_code == 200, url
        ready = client.get("/readyz", HTTP_AUTHORIZATION="Bearer cache-probe")
        assert ready.json()["checks"]["cache"]["status"] == "down"
