import socket
from collections.abc import Callable, Iterator

import pytest
import redis
from django.core.cache import cache

from directory.celery import app as celery_app
from tests import factories
from tests.snapshots import Snapshots

# The broker of tests that queue jobs without a worker (tests/ops/test_worker.py
# runs one).
TEST_BROKER = "redis://127.0.0.1:6379/14"


@pytest.fixture(autouse=True)
def _media_in_tmp(settings, tmp_path):
    """Keep uploads out of the real media folder."""
    settings.MEDIA_ROOT = tmp_path / "media"


@pytest.fixture(autouse=True)
def _fresh_cache():
    """Each test starts with an empty cache: rolled-back data must not be served."""
    cache.clear()


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
