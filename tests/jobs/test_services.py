import io
import time
from datetime import timedelta

import pytest
from django.core.management import call_command
from django.db import IntegrityError, transaction
from django.utils import timezone

from jobs.models import Job
from jobs.registry import DEFAULT_TIME_LIMIT, get_kind
from jobs.services import STALE_AFTER, requeue_unavailable
from tests import factories
from tests.jobs.conftest import finished

pytestmark = pytest.mark.django_db


def test_rebuilding_the_index_runs_as_a_job_with_its_progress_and_summary(start):
    factories.person(display_name="Grace Hopper", family_name="Hopper")

    started = start("search.rebuild_index")

    job = started.job
    assert started.created
    assert job.state == Job.State.DONE
    assert (job.done, job.total) == (3, 3)
    assert job.summary == "Indexed 0 event, 1 person, 0 publication."
    assert job.started_at <= job.finished_at
    assert not job.ran_in_foreground


def test_a_job_on_a_record_names_it_and_who_asked(start, admin_user):
    person = factories.person(display_name="Grace Hopper")

    job = start("tests.count_initials", person, requested_by=admin_user).job

    assert job.state == Job.State.DONE
    assert (job.target, job.target_label) == (str(person.pk), "Grace Hopper")
    assert job.requested_by == admin_user
    assert job.summary == f"Counted the initials of Grace Hopper: {person.initials}."
    assert job.message == "Step 3"


# The job's thread reads what the test wrote: the test commits.
@pytest.mark.django_db(transaction=True)
def test_without_a_broker_the_work_runs_in_a_thread_and_the_call_returns_at_once(
    start, no_broker, slow_source
):
    person = factories.person(display_name="Grace Hopper")

    began = time.monotonic()
    job = start("tests.slow", person).job
    assert time.monotonic() - began < 1
    assert job.ran_in_foreground and job.is_open

    slow_source.set()
    job = finished(job)
    assert job.state == Job.State.DONE
    assert job.summary == "The source answered for Grace Hopper."


def test_a_queued_job_waits_for_a_worker_and_asking_again_joins_it(start, redis_queue):
    person = factories.person()

    first = start("tests.count_initials", person)
    again = start("tests.count_initials", person)

    assert first.job.state == Job.State.QUEUED
    assert (again.job.pk, again.created) == (first.job.pk, False)
    assert Job.objects.count() == 1


def test_the_database_allows_one_open_job_per_target():
    Job.objects.create(kind="tests.count_initials", target="7")
    with pytest.raises(IntegrityError), transaction.atomic():
        Job.objects.create(kind="tests.count_initials", target="7")
    Job.objects.create(kind="tests.count_initials", target="8")
    Job.objects.create(kind="tests.count_initials", target="7", state="done")


def test_progress_cannot_pass_the_total():
    with pytest.raises(IntegrityError):
        Job.objects.create(kind="tests.count_initials", done=4, total=3)


def test_a_broker_that_is_down_keeps_the_job_until_it_is_back(
    start, broker_down, django_capture_on_commit_callbacks
):
    person = factories.person()

    job = start("tests.count_initials", person).job

    assert job.state == Job.State.UNAVAILABLE
    assert "could not be reached" in job.message
    # Nothing more can be sent while it is down...
    assert requeue_unavailable() == 0
    # ...and once it is back (here: eager), the schedule sends what waited.
    broker_down.update(task_always_eager=True)
    assert requeue_unavailable() == 1
    job.refresh_from_db()
    assert (job.state, job.message) == (Job.State.DONE, "Step 3")


def test_asking_again_for_work_that_waits_for_the_broker_sends_it(start, broker_down):
    person = factories.person()
    waiting = start("tests.count_initials", person).job
    broker_down.update(task_always_eager=True)

    again = start("tests.count_initials", person)

    assert (again.job.pk, again.job.state) == (waiting.pk, Job.State.DONE)


def test_a_job_queued_long_ago_is_sent_again_when_asked_for(start, redis_queue):
    person = factories.person()
    job = start("tests.count_initials", person).job
    Job.objects.filter(pk=job.pk).update(
        queued_at=timezone.now() - STALE_AFTER - timedelta(minutes=1)
    )
    redis_queue.update(task_always_eager=True)

    assert start("tests.count_initials", person).job.state == Job.State.DONE


def test_a_failing_job_records_the_error_and_how_far_it_got(start):
    job = start("tests.fail", factories.person()).job

    assert job.state == Job.State.FAILED
    assert job.error == "RuntimeError: the source answered 503"
    assert (job.done, job.total, job.message) == (1, 2, "Half way")
    assert job.finished_at is not None


def test_a_job_whose_record_was_deleted_fails_without_running(start, redis_queue):
    person = factories.person()
    job = start("tests.count_initials", person).job
    person.delete()

    get_kind("tests.count_initials").task.apply((job.pk,))

    job.refresh_from_db()
    assert (job.state, job.error) == (Job.State.FAILED, "Its record no longer exists.")


def test_a_message_delivered_twice_runs_the_job_once(start):
    job = start("tests.count_initials", factories.person()).job
    finished_at = job.finished_at

    result = get_kind("tests.count_initials").task.apply((job.pk,)).get()

    job.refresh_from_db()
    assert result == "Skipped: the job is not waiting to run."
    assert job.finished_at == finished_at


def test_the_schedule_starts_a_job_of_its_own_unless_one_is_open():
    task = get_kind("search.rebuild_index").task

    assert task.apply().get().startswith("Indexed ")
    job = Job.objects.get()
    assert (job.kind, job.state, job.requested_by) == (
        "search.rebuild_index",
        Job.State.DONE,
        None,
    )
    Job.objects.create(kind="search.rebuild_index", state=Job.State.RUNNING)
    assert task.apply().get() == "Skipped: the same work is already queued or running."


def test_a_job_whose_worker_died_is_taken_as_lost_when_the_work_is_asked_again(
    start,
):
    person = factories.person()
    lost = Job.objects.create(
        kind="tests.count_initials",
        target=str(person.pk),
        state=Job.State.RUNNING,
        started_at=timezone.now() - DEFAULT_TIME_LIMIT - timedelta(minutes=1),
    )
    busy = factories.person()
    running = Job.objects.create(
        kind="tests.count_initials",
        target=str(busy.pk),
        state=Job.State.RUNNING,
        started_at=timezone.now() - DEFAULT_TIME_LIMIT + timedelta(minutes=1),
    )

    started = start("tests.count_initials", person)

    lost.refresh_from_db()
    assert (lost.state, lost.error) == (
        Job.State.FAILED,
        "No progress for over 6 hours: the process running it ended (a restart, "
        "a crash or a timeout) without finishing it.",
    )
    assert started.created and started.job.state == Job.State.DONE
    joined = start("tests.count_initials", busy)
    assert (joined.job.pk, joined.job.state) == (running.pk, Job.State.RUNNING)


def _running(kind: str, target: str, *, silent_for: timedelta) -> Job:
    sign = timezone.now() - silent_for
    return Job.objects.create(
        kind=kind,
        target=target,
        state=Job.State.RUNNING,
        started_at=sign - timedelta(hours=1),
        heartbeat_at=sign,
    )


def test_reap_jobs_fails_only_jobs_silent_past_their_kinds_time_limit():
    # tests.slow allows 1 minute without progress; tests.count_initials 6 hours.
    lost = _running("tests.slow", "1", silent_for=timedelta(minutes=2))
    alive = _running("tests.slow", "2", silent_for=timedelta(seconds=30))
    long_kind = _running("tests.count_initials", "1", silent_for=timedelta(hours=2))
    done = Job.objects.create(
        kind="tests.slow", target="3", state=Job.State.DONE, started_at=timezone.now()
    )
    out = io.StringIO()

    call_command("reap_jobs", stdout=out)

    assert out.getvalue() == "1 lost job marked failed.\n"
    states = {
        job.pk: (job.state, job.error[:29], job.finished_at is not None)
        for job in Job.objects.all()
    }
    assert states == {
        lost.pk: (Job.State.FAILED, "No progress for over 1 minute", True),
        alive.pk: (Job.State.RUNNING, "", False),
        long_kind.pk: (Job.State.RUNNING, "", False),
        done.pk: (Job.State.DONE, "", False),
    }
