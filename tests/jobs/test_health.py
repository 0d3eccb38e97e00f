import socket
import time
from collections.abc import Iterator
from datetime import timedelta

import pytest
from django.utils import timezone

from core import health
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


def test_readyz_lists_the_broker_without_failing_on_it(client, broker_down, settings):
    settings.HEALTH_TOKEN = "probe-token"
    response = client.get("/readyz", HTTP_AUTHORIZATION="Bearer probe-token")
    body = response.json()
    assert "broker" in body["checks"], body
    assert body["checks"]["broker"]["status"] == "down"
    assert response.status_code == 200


@pytest.fixture
def broker_stalled(queue) -> Iterator:
    """A broker that takes connections and never answers a byte."""
    with socket.socket() as server:
        server.bind(("127.0.0.1", 0))
        server.listen(16)  # the kernel completes connections; nothing reads them
        port = server.getsockname()[1]
        queue.update(broker_url=f"redis://127.0.0.1:{port}/0", task_always_eager=False)
        yield queue


def test_a_stalled_broker_costs_one_short_wait_not_one_per_probe(
    client, broker_stalled, settings, monkeypatch
):
    settings.HEALTH_CHECK_CACHE_SECONDS = 10
    monkeypatch.setattr(health, "_last_run", None)
    timings = []
    for _ in range(5):
        started = time.monotonic()
        response = client.get("/readyz")
        timings.append(time.monotonic() - started)
        assert response.status_code == 200  # the broker is not critical
        assert response.json() == {"status": "degraded"}
    assert 0.5 < timings[0] < 2, timings
    assert sum(timings[1:]) < 0.2, timings
