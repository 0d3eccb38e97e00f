import time
from datetime import timedelta

import pytest
from django.utils import timezone

from jobs.health import broker_check
from jobs.models import Job
from tests.conftest import TEST_BROKER

pytestmark = pytest.mark.django_db


def test_without_a_broker_the_check_says_work_runs_in_the_foreground(no_broker):
    assert broker_check() == {
        "status": "ok",
        "broker": None,
        "detail": "No broker configured: long work runs in the foreground.",
    }


def test_the_machines_redis_is_reported_up_with_the_jobs_waiting_to_be_sent(
    redis_queue,
):
    Job.objects.create(kind="tests.count_initials", state=Job.State.UNAVAILABLE)

    assert broker_check() == {
        "status": "ok",
        "broker": TEST_BROKER,
        "waiting_to_be_sent": 1,
    }


def test_a_broker_that_is_down_is_reported_down_quickly_without_raising(
    broker_down,
):
    started = time.monotonic()

    state = broker_check()

    assert time.monotonic() - started < 2
    assert state["status"] == "down"
    assert state["detail"].startswith("Unreachable: ")
    assert "Connection refused" in state["detail"]


def test_jobs_that_wait_long_for_a_worker_make_the_queue_degraded(redis_queue):
    Job.objects.create(
        kind="tests.count_initials",
        queued_at=timezone.now() - timedelta(minutes=16),
    )

    state = broker_check()

    assert state["status"] == "degraded"
    assert state["detail"] == "Jobs have waited for a worker for over 15 minutes."


def test_the_broker_password_is_not_shown(queue):
    queue.update(
        broker_url="amqp://guest:secret@127.0.0.1:1//", task_always_eager=False
    )

    state = broker_check()

    assert state["status"] == "down"
    assert "secret" not in str(state)


def test_readyz_lists_the_broker_without_failing_on_it(client, broker_down):
    response = client.get("/readyz")
    body = response.json()
    assert "broker" in body["checks"], body
    assert body["checks"]["broker"]["status"] == "down"
    assert response.status_code == 200
