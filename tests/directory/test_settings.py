"""Settings from the environment: each URL kind and typed value read right, and a
wrong value stopping the start with the variable's name.

The settings module is run once per case in a child process (the environment is
read at import); the cases share one child, which runs settings.py afresh for each.
"""

import json
import os
import subprocess
import sys
from pathlib import Path

BASE_DIR = Path(__file__).resolve().parents[2]
BASE_ENV = {"PATH": os.environ["PATH"], "DEBUG": "0", "SECRET_KEY": "k" * 50}

# For each case: the settings it names, as JSON, or the error's message.
RUN_CASES = """
import json, os, runpy, sys
base = dict(os.environ)
for case in json.loads(sys.stdin.read()):
    os.environ.clear()
    os.environ.update({**base, **case["env"]})
    try:
        found = runpy.run_path("directory/settings.py")
    except Exception as error:
        print(json.dumps({"error": f"{type(error).__name__}: {error}"}))
    else:
        print(json.dumps({name: found[name] for name in case["names"]}, default=str))
"""


def settings_for(*cases: tuple[dict, list[str]]) -> list[dict]:
    payload = [{"env": env, "names": names} for env, names in cases]
    done = subprocess.run(
        [sys.executable, "-c", RUN_CASES],
        input=json.dumps(payload),
        env=BASE_ENV,
        cwd=BASE_DIR,
        capture_output=True,
        text=True,
        check=True,
    )
    return [json.loads(line) for line in done.stdout.splitlines()]


def django_setup(**env: str) -> subprocess.CompletedProcess:
    code = (
        "import django, os; os.environ['DJANGO_SETTINGS_MODULE'] = "
        "'directory.settings'; django.setup(); from django.core.cache import caches; "
        "print(type(caches['default']).__name__)"
    )
    return subprocess.run(
        [sys.executable, "-c", code],
        env={**BASE_ENV, **env},
        cwd=BASE_DIR,
        capture_output=True,
        text=True,
    )


def test_each_url_kind_is_read_by_its_scheme():
    caches, databases, mail = ["CACHES"], ["DATABASES"], ["EMAIL_BACKEND"]
    redis, locmem, dummy, unix, sqlite, postgres, smtp, console, unset = settings_for(
        ({"CACHE_URL": "redis://:pw@127.0.0.1:6379/2"}, caches),
        ({"CACHE_URL": "locmem://"}, caches),
        ({"CACHE_URL": "dummy://"}, caches),
        ({"CACHE_URL": "unix:///run/redis.sock"}, caches),
        ({"DATABASE_URL": "sqlite:////tmp/lab.sqlite3"}, databases),
        ({"DATABASE_URL": "postgres://app:s%40t@db:5433/lab"}, databases),
        (
            {"EMAIL_URL": "smtp+tls://mail:pw@smtp.example.org:587"},
            [
                *mail,
                "EMAIL_HOST",
                "EMAIL_PORT",
                "EMAIL_HOST_USER",
                "EMAIL_HOST_PASSWORD",
                "EMAIL_USE_TLS",
            ],
        ),
        ({"EMAIL_URL": "consolemail://"}, mail),
        (
            {"CACHE_URL": "", "EMAIL_URL": ""},
            [*caches, *mail, "EMAIL_HOST", "EMAIL_PORT"],
        ),
    )
    default = redis["CACHES"]["default"]
    assert default["BACKEND"] == "core.cache_backend.ResilientRedisCache"
    assert default["LOCATION"] == "redis://:pw@127.0.0.1:6379/2"
    assert default["OPTIONS"] == {
        "socket_connect_timeout": 0.05,
        "socket_timeout": 0.05,
        "retry_seconds": 5,
    }
    assert locmem["CACHES"]["default"]["BACKEND"].endswith("LocMemCache")
    assert dummy["CACHES"]["default"]["BACKEND"].endswith("DummyCache")
    assert unix["CACHES"]["default"]["LOCATION"] == "unix:///run/redis.sock"
    assert unix["CACHES"]["default"]["BACKEND"].endswith("ResilientRedisCache")

    assert sqlite["DATABASES"]["default"]["NAME"] == "/tmp/lab.sqlite3"
    assert sqlite["DATABASES"]["default"]["CONN_MAX_AGE"] == 60
    db = postgres["DATABASES"]["default"]
    assert db["ENGINE"] == "django.db.backends.postgresql"
    assert (db["HOST"], db["PORT"], db["NAME"], db["PASSWORD"]) == (
        "db",
        5433,
        "lab",
        "s@t",
    )
    assert db["CONN_HEALTH_CHECKS"] is True
    assert db["OPTIONS"]["options"] == "-c random_page_cost=1.1"

    assert smtp == {
        "EMAIL_BACKEND": "django.core.mail.backends.smtp.EmailBackend",
        "EMAIL_HOST": "smtp.example.org",
        "EMAIL_PORT": 587,
        "EMAIL_HOST_USER": "mail",
        "EMAIL_HOST_PASSWORD": "pw",
        "EMAIL_USE_TLS": True,
    }
    assert console["EMAIL_BACKEND"] == "django.core.mail.backends.console.EmailBackend"
    # Set empty is unset: local memory, and Django's own SMTP default.
    assert unset["CACHES"]["default"]["BACKEND"].endswith("LocMemCache")
    assert unset["EMAIL_BACKEND"].endswith("smtp.EmailBackend")
    assert (unset["EMAIL_HOST"], unset["EMAIL_PORT"]) == ("localhost", 25)


def test_typed_values_are_read_strictly_and_empty_is_unset():
    words, empty, lists, clock = settings_for(
        (
            {"DEBUG": "Yes", "SERVE_MEDIA": "off", "CONN_MAX_AGE": " 0 "},
            ["DEBUG", "SERVE_MEDIA", "DATABASES"],
        ),
        (
            {"CONN_MAX_AGE": "", "SEMANTIC_SEARCH": "", "PROXY_COUNT": ""},
            ["DATABASES", "SEMANTIC_SEARCH", "PROXY_COUNT"],
        ),
        (
            {
                "ALLOWED_HOSTS": " lab.example.org , ,www.example.org",
                "CELERY_BROKER_URL": "redis://a:6379/1; amqp://b//",
            },
            ["ALLOWED_HOSTS", "CELERY_BROKER_URL"],
        ),
        (
            {
                "SYNC_SOURCES_AT": "",
                "PG_RANDOM_PAGE_COST": "",
                "DATABASE_URL": "postgres:///lab",
            },
            ["SYNC_SOURCES_AT", "DATABASES"],
        ),
    )
    assert words["DEBUG"] is True and words["SERVE_MEDIA"] is False
    assert words["DATABASES"]["default"]["CONN_MAX_AGE"] == 0
    assert empty["DATABASES"]["default"]["CONN_MAX_AGE"] == 60
    assert empty["SEMANTIC_SEARCH"] is False and empty["PROXY_COUNT"] == 0
    assert lists["ALLOWED_HOSTS"] == ["lab.example.org", "www.example.org"]
    assert lists["CELERY_BROKER_URL"] == "redis://a:6379/1; amqp://b//"
    # A string set empty stays empty: no daily sync, the server's own page cost.
    assert clock["SYNC_SOURCES_AT"] is None
    assert "options" not in clock["DATABASES"]["default"]["OPTIONS"]


WRONG = [
    ({"DEBUG": "maybe"}, "DEBUG"),
    ({"SECURE_SSL_REDIRECT": "enabled"}, "SECURE_SSL_REDIRECT"),
    ({"CONN_MAX_AGE": "sixty"}, "CONN_MAX_AGE"),
    ({"CACHE_TIMEOUT_MS": "50ms", "CACHE_URL": "redis://r:6379/0"}, "CACHE_TIMEOUT_MS"),
    ({"PHOTO_MAX_BYTES": "5M"}, "PHOTO_MAX_BYTES"),
    ({"CACHE_URL": "memcached://m:11211"}, "CACHE_URL"),
    ({"CACHE_URL": "127.0.0.1:6379"}, "CACHE_URL"),
    ({"DATABASE_URL": "postgress://db/lab"}, "DATABASE_URL"),
    (
        {"DATABASE_REPLICA_URLS": "sqlite:///a.sqlite3,sqlit:///b"},
        "DATABASE_REPLICA_URLS",
    ),
    ({"EMAIL_URL": "smtpx://user:s3cret@mail"}, "EMAIL_URL"),
    ({"CELERY_BROKER_URL": "redis://r/1;http://b"}, "CELERY_BROKER_URL"),
    ({"SYNC_SOURCES_AT": "3am"}, "SYNC_SOURCES_AT"),
    (
        {"PG_RANDOM_PAGE_COST": "low", "DATABASE_URL": "postgres:///l"},
        "PG_RANDOM_PAGE_COST",
    ),
]


def test_a_wrong_value_stops_the_start_naming_its_variable():
    found = settings_for(*((env, []) for env, _ in WRONG))
    for (env, name), result in zip(WRONG, found, strict=True):
        assert result.get("error", "").startswith(f"ImproperlyConfigured: {name}"), (
            env,
            result,
        )
    assert "s3cret" not in json.dumps(found)


def test_django_starts_with_a_dummy_cache_and_refuses_a_wrong_value():
    started = django_setup(CACHE_URL="dummy://", EMAIL_URL="consolemail://")
    assert started.returncode == 0, started.stderr
    assert started.stdout.strip() == "DummyCache"
    refused = django_setup(CACHE_URL="memcached://m:11211")
    assert refused.returncode != 0
    assert "ImproperlyConfigured: CACHE_URL must be a URL" in refused.stderr


def test_the_api_throttle_counts_in_a_store_all_processes_share():
    redis, unset, elsewhere = settings_for(
        ({"CACHE_URL": "redis://127.0.0.1:6379/2"}, ["CACHES"]),
        ({}, ["CACHES", "VAR_DIR"]),
        ({"THROTTLE_CACHE_DIR": "/srv/lab/throttle"}, ["CACHES"]),
    )
    # Redis itself, not the breaker that answers a failure as a miss.
    assert redis["CACHES"]["throttle"] == {
        "BACKEND": "django.core.cache.backends.redis.RedisCache",
        "LOCATION": "redis://127.0.0.1:6379/2",
        "OPTIONS": {"socket_connect_timeout": 0.05, "socket_timeout": 0.05},
    }
    # Never local memory, which each worker process would count in on its own.
    throttle = unset["CACHES"]["throttle"]
    assert throttle["BACKEND"].endswith("FileBasedCache")
    assert throttle["LOCATION"] == f"{unset['VAR_DIR']}/throttle"
    assert elsewhere["CACHES"]["throttle"]["LOCATION"] == "/srv/lab/throttle"
