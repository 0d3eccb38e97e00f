"""Real services, real faults: gunicorn serving the demo lab from PostgreSQL, with
Redis as its cache, each behind a proxy that the test cuts and restores. Pages and
the API before, during and after each outage; the server is never restarted."""

import json
import os
import signal
import subprocess
import sys
import time
import urllib.error
import urllib.request
import uuid
from pathlib import Path
from urllib.parse import urlsplit

import pytest
import redis

from tests.ops.conftest import _maintenance
from tests.ops.faultproxy import HANG, REFUSE, FaultProxy
from tests.ops.test_serve import free_port

BASE_DIR = Path(__file__).resolve().parents[2]
POSTGRES = os.environ.get("DATABASE_URL", "")
if not POSTGRES.startswith(("postgres://", "postgresql://")):
    POSTGRES = os.environ.get(
        "TEST_POSTGRES_URL", "postgres://postgres@127.0.0.1:5432/"
    )
REDIS_PORT = int(os.environ.get("TEST_REDIS_PORT", "6379"))
REDIS_DB = 12
RETRY_AFTER = 7
GUNICORN = str(Path(sys.executable).parent / "gunicorn")
HEALTH_TOKEN = "outages-probe"


def get(url: str, headers: dict | None = None) -> tuple[int, dict, bytes]:
    request = urllib.request.Request(url, headers=headers or {})
    try:
        with urllib.request.urlopen(request, timeout=30) as response:
            return response.status, dict(response.headers), response.read()
    except urllib.error.HTTPError as error:
        return error.code, dict(error.headers), error.read()


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    """gunicorn over a demo database reached through `db`, a cache through `cache`."""
    try:
        redis.Redis(port=REDIS_PORT, db=REDIS_DB).ping()
        _maintenance(POSTGRES, "SELECT 1")
    except Exception as error:  # noqa: BLE001 - whatever keeps the services away
        pytest.skip(f"needs PostgreSQL and Redis on this machine: {error}")
    tmp = tmp_path_factory.mktemp("outages")
    database = f"scratch_outages_{uuid.uuid4().hex[:10]}"
    _maintenance(POSTGRES, f'CREATE DATABASE "{database}"')
    server = urlsplit(POSTGRES)
    db = FaultProxy(server.port or 5432, server.hostname or "127.0.0.1")
    cache = FaultProxy(REDIS_PORT)
    url = server._replace(netloc=f"{server.username or 'postgres'}@127.0.0.1:{db.port}")
    env = {
        "PATH": os.environ["PATH"],
        "HOME": str(tmp),
        # Production defaults with static files from the source folders: a
        # collectstatic with compression costs minutes on these machines.
        "DJANGO_SETTINGS_MODULE": "tests.settings",
        "DEBUG": "0",
        "SECRET_KEY": "outages-test-0123456789abcdefghijklmnopqrstuvwxyz-0123456789",
        "SECURE_SSL_REDIRECT": "0",
        "ALLOWED_HOSTS": "127.0.0.1",
        "DATABASE_URL": url._replace(path=f"/{database}").geturl(),
        "CACHE_URL": cache.url(f"redis://127.0.0.1:{{port}}/{REDIS_DB}"),
        "CACHE_RETRY_SECONDS": "1",
        "RETRY_AFTER_SECONDS": str(RETRY_AFTER),
        "DATABASE_CONNECT_TIMEOUT": "2",
        "MEDIA_ROOT": str(tmp / "media"),
        "LOG_LEVEL": "WARNING",
        "HEALTH_TOKEN": HEALTH_TOKEN,
    }
    direct = {**env, "DATABASE_URL": server._replace(path=f"/{database}").geturl()}
    for command in (["migrate", "-v0"], ["load_demo"]):
        subprocess.run(
            [sys.executable, "manage.py", *command],
            cwd=BASE_DIR,
            env=direct,
            check=True,
            capture_output=True,
        )
    port = free_port()
    log = (tmp / "server.log").open("w")
    process = subprocess.Popen(
        [
            GUNICORN,
            "directory.wsgi:application",
            "--workers",
            "2",
            "--bind",
            f"127.0.0.1:{port}",
        ],
        cwd=BASE_DIR,
        env=env,
        stdout=log,
        stderr=subprocess.STDOUT,
        start_new_session=True,
    )
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 60
        while get_or_none(f"{base}/healthz") != 200:
            if process.poll() is not None or time.monotonic() > deadline:
                pytest.fail((tmp / "server.log").read_text()[-3000:])
            time.sleep(0.3)
        yield base, db, cache, tmp / "server.log"
    finally:
        os.killpg(process.pid, signal.SIGTERM)
        process.wait(timeout=30)
        log.close()
        db.close()
        cache.close()
        redis.Redis(port=REDIS_PORT, db=REDIS_DB).flushdb()
        _maintenance(POSTGRES, f'DROP DATABASE IF EXISTS "{database}" WITH (FORCE)')


def get_or_none(url: str) -> int | None:
    try:
        return get(url)[0]
    except OSError:
        return None


def readiness(base: str) -> tuple[int, dict]:
    status, _, body = get(
        f"{base}/readyz", headers={"Authorization": f"Bearer {HEALTH_TOKEN}"}
    )
    return status, json.loads(body)


def fresh(path: str) -> str:
    """A URL no cache has seen, so that answering it needs the database."""
    return f"{path}{'&' if '?' in path else '?'}q={uuid.uuid4().hex[:8]}"


PAGES = ["/", "/people/", "/publications/", "/events/", "/api/people/"]


def assert_serving(base: str) -> None:
    for path in PAGES + [fresh("/people/"), fresh("/api/publications/")]:
        status, _, _ = get(base + path)
        assert status == 200, path


def wait_until(predicate, seconds: float = 15) -> None:
    deadline = time.monotonic() + seconds
    while not predicate():
        assert time.monotonic() < deadline, "did not recover in time"
        time.sleep(0.2)


@pytest.mark.parametrize("mode", [REFUSE, HANG])
def test_the_site_serves_from_the_database_while_redis_is_cut(site, mode):
    base, _, cache, _ = site
    assert_serving(base)
    # A call that outlasts the short timeout on this busy machine opens the breaker
    # for a second: the cache is used again after it.
    wait_until(lambda: readiness(base)[1]["checks"]["cache"]["status"] == "ok")

    cache.cut(mode)
    started = time.monotonic()
    assert_serving(base)
    assert time.monotonic() - started < 20
    status, ready = readiness(base)
    assert status == 200 and ready["status"] == "degraded"
    assert ready["checks"]["cache"]["status"] == "down"

    cache.restore()
    wait_until(lambda: readiness(base)[1]["checks"]["cache"]["status"] == "ok")
    assert_serving(base)


def test_the_database_cut_is_503_with_retry_after_and_the_site_recovers(site):
    base, db, _, log = site
    assert_serving(base)

    db.cut(REFUSE)
    status, headers, body = get(base + fresh("/people/"))
    assert status == 503 and headers["Retry-After"] == str(RETRY_AFTER)
    assert b"Temporarily unavailable" in body and b"Traceback" not in body
    status, headers, body = get(base + fresh("/api/people/"))
    assert status == 503 and headers["Retry-After"] == str(RETRY_AFTER)
    assert json.loads(body)["error"]["code"] == "service_unavailable"
    assert readiness(base)[0] == 503
    assert get(f"{base}/healthz")[0] == 200

    db.restore()
    statuses = []

    def serving() -> bool:
        statuses.append(get(base + fresh("/people/"))[0])
        return statuses[-1] == 200

    wait_until(serving)
    assert set(statuses) <= {200, 503}
    assert_serving(base)
    assert readiness(base)[0] == 200
    assert "Traceback" not in log.read_text()
