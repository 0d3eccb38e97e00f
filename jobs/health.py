"""The job queue's state, for /readyz: the broker reached, and whether jobs wait."""

from datetime import timedelta

from celery import current_app
from django.db.models import Min
from django.utils import timezone
from kombu.utils.url import maybe_sanitize_url

from jobs.models import Job

# Queued longer than this with nothing running it: probably no worker is up.
WAITING_TOO_LONG = timedelta(minutes=15)
TIMEOUT = 1.0  # seconds


def broker_check() -> dict:
    """Return {"status": "ok"|"degraded"|"down", …} for the broker; never raise."""
    url = current_app.conf.broker_url
    if not url:
        return {
            "status": "ok",
            "broker": None,
            "detail": "No broker configured: long work runs in the foreground.",
        }
    state = {"broker": maybe_sanitize_url(url)}
    # Shorter than the jobs' own timeouts: a broker that takes the connection and
    # never answers holds each probe this long (connect, then the first reply).
    connection = current_app.amqp.Connection(
        url,
        connect_timeout=TIMEOUT,
        transport_options={
            **current_app.conf.broker_transport_options,
            "socket_connect_timeout": TIMEOUT,
            "socket_timeout": TIMEOUT,
        },
    )
    try:
        with connection:
            connection.ensure_connection(
                max_retries=1, interval_start=0, timeout=TIMEOUT
            )
    except Exception as error:  # a health check reports, never raises
        return {**state, "status": "down", "detail": f"Unreachable: {error}"}
    try:
        waiting = Job.objects.filter(state=Job.State.QUEUED).aggregate(
            oldest=Min("queued_at")
        )["oldest"]
        unavailable = Job.objects.filter(state=Job.State.UNAVAILABLE).count()
    except Exception as error:  # the database has its own check
        return {**state, "status": "ok", "detail": f"Jobs not counted: {error}"}
    if waiting is not None and timezone.now() - waiting > WAITING_TOO_LONG:
        return {
            **state,
            "status": "degraded",
            "detail": "Jobs have waited for a worker for over 15 minutes.",
            "oldest_queued_at": waiting.isoformat(),
            "waiting_to_be_sent": unavailable,
        }
    return {**state, "status": "ok", "waiting_to_be_sent": unavailable}
