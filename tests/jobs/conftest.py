import threading
import time
from collections.abc import Iterator
from datetime import timedelta

import pytest

from jobs.models import Job
from jobs.registry import register
from jobs.runner import JobFailed
from jobs.services import Started, start_job
from people.models import Person

# What the slow source waits for before it answers.
_released = threading.Event()


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


def _slow(person: Person, progress) -> str:
    progress(0, 1, "Waiting for the source")
    if not _released.wait(5):
        raise JobFailed("The source never answered.")
    return f"The source answered for {person}."


register(
    "tests.slow",
    label="Slow sync",
    run=_slow,
    target_model=Person,
    permission="people.change_person",
    time_limit=timedelta(minutes=1),
)


@pytest.fixture
def slow_source() -> Iterator[threading.Event]:
    """A source that answers when the test sets the event (or after 5 s)."""
    _released.clear()
    yield _released
    _released.set()  # a thread still waiting ends now


def finished(job: Job, timeout: float = 5) -> Job:
    """Wait for `job` (run by a thread of this process) to end; it, reloaded."""
    deadline = time.monotonic() + timeout
    while True:
        job.refresh_from_db()
        if not job.is_open or time.monotonic() > deadline:
            return job
        time.sleep(0.02)


@pytest.fixture
def start(django_capture_on_commit_callbacks):
    """start_job, with what it leaves for after the commit run as if committed."""

    def start(*args, **kwargs) -> Started:
        with django_capture_on_commit_callbacks(execute=True):
            started = start_job(*args, **kwargs)
        started.job.refresh_from_db()
        return started

    return start
