import socket
from collections.abc import Iterator

import pytest
import redis

from directory.celery import app as celery_app
from jobs.registry import register
from jobs.services import Started, start_job
from people.models import Person

REDIS = "redis://127.0.0.1:6379/14"


def _count_initials(person: Person, progress) -> str:
    for done in range(3):
        progress(done, 3, f"Step {done + 1}")
    return f"Counted the initials of {person}: {person.initials}."


def _fail(person: Person, progress) -> str:
    progress(1, 2, "Half way")
    raise RuntimeError("the source answered 503")


register(
    "tests.count_initials",
    label="Count initials",
    run=_count_initials,
    target_model=Person,
    permission="people.change_person",
    applies_to=lambda person: person.status == Person.Status.CURRENT,
)
register("tests.fail", label="Fail", run=_fail, target_model=Person)


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
    queue.update(broker_url=REDIS, task_always_eager=False)
    yield queue
    redis.Redis.from_url(REDIS).delete(queue.task_default_queue)


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


@pytest.fixture
def start(django_capture_on_commit_callbacks):
    """start_job, with what it leaves for after the commit run as if committed."""

    def start(*args, **kwargs) -> Started:
        with django_capture_on_commit_callbacks(execute=True):
            started = start_job(*args, **kwargs)
        started.job.refresh_from_db()
        return started

    return start
