import socket
from collections.abc import Callable, Iterator

import pytest
import redis
from django.core.cache import cache, caches
from django.db import connections

from directory.celery import app as celery_app
from tests import factories
from tests.snapshots import Snapshots

# A test that takes longer than this is marked `slow` and says why in its docstring;
# one unmarked that takes half as long again fails the run.
SLOW_SECONDS = 10
_unmarked_slow: list[tuple[str, float]] = []


def pytest_collection_modifyitems(config, items):
    for item in items:
        if item.get_closest_marker("slow") and not (item.function.__doc__ or ""):
            raise pytest.UsageError(
                f"{item.nodeid}: a slow test says why in a docstring"
            )
    # Files with long tests first: the workers share the rest while those run. A
    # file stays in one piece, so that its module-scoped fixtures are made once.
    slow = {_file(item) for item in items if item.get_closest_marker("slow")}
    items.sort(key=lambda item: _file(item) not in slow)


def _file(item) -> str:
    return item.nodeid.split("::")[0]


def pytest_configure(config):
    global SLOW_SECONDS
    # Measuring coverage (`make coverage`) slows the code down about twice over.
    if getattr(config.option, "cov_source", None):
        SLOW_SECONDS *= 2


def pytest_runtest_logreport(report):
    if report.when == "call" and report.duration > SLOW_SECONDS:
        if "slow" not in report.keywords:
            _unmarked_slow.append((report.nodeid, report.duration))


def pytest_terminal_summary(terminalreporter, exitstatus, config):
    if not _unmarked_slow:
        return
    terminalreporter.section(f"over {SLOW_SECONDS} s and not marked slow")
    for nodeid, duration in _unmarked_slow:
        terminalreporter.write_line(f"{duration:6.1f}s {nodeid}")


def pytest_sessionfinish(session, exitstatus):
    if any(duration > 1.5 * SLOW_SECONDS for _, duration in _unmarked_slow):
        session.exitstatus = pytest.ExitCode.TESTS_FAILED


# The broker of tests that queue jobs without a worker (tests/ops/test_worker.py
# runs one).
TEST_BROKER = "redis://127.0.0.1:6379/14"


@pytest.fixture(autouse=True)
def _media_in_tmp(settings, tmp_path):
    """Keep uploads out of the real media folder."""
    settings.MEDIA_ROOT = tmp_path / "media"


@pytest.fixture(autouse=True)
def _fresh_cache():
    """Each test starts with an empty cache: rolled-back data must not be served,
    nor another test's calls counted by the API throttle."""
    cache.clear()
    caches["throttle"].clear()


@pytest.fixture(scope="session")
def django_db_setup(django_db_setup, django_db_blocker):
    """The test databases; at the end, every connection of this process is closed
    before they are dropped (PostgreSQL refuses to drop one still in use: the
    replica alias mirrors the default database on a connection of its own)."""
    yield
    with django_db_blocker.unblock():
        connections.close_all()


@pytest.fixture(scope="session")
def snapshots() -> Snapshots:
    """The data builders made in this process (tests/snapshots.py)."""
    return Snapshots()


@pytest.fixture
def restore(snapshots) -> Callable:
    """Put back what a builder writes, built once per process."""
    return snapshots.restore


@pytest.fixture
def demo_lab(db, restore):
    """The four seed members, as `make run` loads them from demo/."""
    restore(factories.demo_lab)


@pytest.fixture
def admin_client_logged_in(client, django_user_model):
    user = django_user_model.objects.create_superuser(
        "admin", "admin@example.org", "a-long-test-password"
    )
    client.force_login(user)
    return client


def _forget_connections() -> None:
    # Celery keeps its pool of connections to the first broker URL it was given.
    celery_app._pool = None
    celery_app.amqp._producer_pool = None


@pytest.fixture
def queue() -> Iterator:
    """Celery's configuration, for the test to point at a broker (restored after)."""
    conf = celery_app.conf
    saved = {key: conf[key] for key in ("broker_url", "task_always_eager")}
    _forget_connections()
    yield conf
    conf.update(saved)
    _forget_connections()


@pytest.fixture
def redis_queue(queue) -> Iterator:
    """The machine's Redis as broker, with no worker: jobs stay queued."""
    queue.update(broker_url=TEST_BROKER, task_always_eager=False)
    yield queue
    redis.Redis.from_url(TEST_BROKER).delete(queue.task_default_queue)


@pytest.fixture
def broker_down(queue):
    """A broker URL whose port nothing listens on."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    queue.update(broker_url=f"redis://127.0.0.1:{port}/0", task_always_eager=False)
    return queue


@pytest.fixture
def no_broker(queue):
    queue.update(broker_url=None, task_always_eager=False)
    return queue


# The members the recorded ORCID and OpenAlex samples (tests/sources/samples) are
# about and co-author with: shared by the import tests and the re-index tests.
@pytest.fixture
def mina(db):
    return factories.person(
        given_name="Mina",
        family_name="Park",
        display_name="Mina Park",
        slug="mina-park",
        orcid="0000-0002-1825-0097",
    )


@pytest.fixture
def jonas(db):
    return factories.person(
        given_name="Jonas", family_name="Weber", display_name="Jonas Weber"
    )
