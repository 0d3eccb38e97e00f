import pytest

from jobs.registry import register
from jobs.services import Started, start_job
from people.models import Person


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


@pytest.fixture
def start(django_capture_on_commit_callbacks):
    """start_job, with what it leaves for after the commit run as if committed."""

    def start(*args, **kwargs) -> Started:
        with django_capture_on_commit_callbacks(execute=True):
            started = start_job(*args, **kwargs)
        started.job.refresh_from_db()
        return started

    return start
