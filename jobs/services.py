"""Starting jobs: on the queue when a broker is configured, in a thread if not.

Without a broker the job runs in a background thread of the process that asked,
so the request answers at once (a slow source would otherwise hold a web worker
until its timeout kills it) and the job's page follows it. A process that ends
mid-job leaves it "running": `reap_jobs` marks failed each job silent for longer
than its kind's time limit; the job list and page, and asking for the same work
again, call it.
"""

import logging
import threading
from dataclasses import dataclass
from datetime import timedelta
from functools import partial

from celery import current_app
from django.contrib import messages
from django.db import IntegrityError, connections, models, transaction
from django.db.models.functions import Coalesce
from django.utils import timezone
from kombu.exceptions import OperationalError

from jobs import runner
from jobs.models import Job
from jobs.registry import DEFAULT_TIME_LIMIT, JobKind, get_kind, kinds

logger = logging.getLogger(__name__)

# A Redis that keeps nothing on disk forgets its queue when it restarts: a job
# queued longer than this is sent again when someone asks for the same work.
STALE_AFTER = timedelta(hours=1)


@dataclass(frozen=True)
class Started:
    job: Job
    # False when the same work was already open and this request joined it.
    created: bool


def queue_configured() -> bool:
    """Whether jobs go to a broker (or run eagerly, as tests do) rather than here."""
    conf = current_app.conf
    return bool(conf.task_always_eager or conf.broker_url)


def start_job(
    kind_name: str, target: models.Model | None = None, *, requested_by=None
) -> Started:
    """Queue (or, without a broker, run) `kind_name` on `target`; reuse an open job."""
    kind = get_kind(kind_name)
    key = "" if target is None else str(target.pk)
    reap_jobs()  # a lost job of the same work must not be joined
    open_job = Job.objects.open().for_target(kind.name, key).first()
    if open_job is None:
        try:
            with transaction.atomic():
                job = Job.objects.create(
                    kind=kind.name,
                    target=key,
                    target_label=str(target or "")[:200],
                    requested_by=requested_by,
                    queued_at=timezone.now(),
                )
        except IntegrityError:
            # Someone else asked for the same work in the meantime.
            open_job = Job.objects.open().for_target(kind.name, key).get()
        else:
            dispatch(job)
            job.refresh_from_db()
            return Started(job, created=True)
    if open_job.state == Job.State.UNAVAILABLE or _stale(open_job):
        dispatch(open_job)
        open_job.refresh_from_db()
    return Started(open_job, created=False)


def latest_job(kind_name: str, target: models.Model) -> Job | None:
    """The last job of `kind_name` started on `target`, open or finished."""
    return Job.objects.filter(kind=kind_name, target=str(target.pk)).first()


def dispatch(job: Job) -> None:
    """Once the current transaction commits, send `job` to the queue or, without
    one, start it in a thread of this process."""
    kind = get_kind(job.kind)
    if not queue_configured():
        Job.objects.filter(pk=job.pk).update(ran_in_foreground=True)
        transaction.on_commit(partial(_start_thread, kind, job.pk))
        return
    transaction.on_commit(partial(_publish, kind, job.pk))


def _start_thread(kind: JobKind, job_id: int) -> None:
    # A daemon: a process that stops does not wait for it; the reaper sees to it.
    thread = threading.Thread(
        target=_run_in_thread, args=(kind, job_id), name=f"job-{job_id}", daemon=True
    )
    thread.start()


def _run_in_thread(kind: JobKind, job_id: int) -> None:
    try:
        runner.execute(kind, job_id)
    except Exception:  # the runner records the work's errors; this is its own
        logger.exception("Job %s could not be run", job_id)
    finally:
        connections.close_all()  # this thread's connections only


def reap_jobs() -> int:
    """Mark failed the running jobs silent past their kind's time limit; how many."""
    now = timezone.now()
    registered = kinds()
    running = Job.objects.filter(state=Job.State.RUNNING).annotate(
        last_sign=Coalesce("heartbeat_at", "started_at", "created_at")
    )
    reaped = 0
    for job_id, kind_name, last_sign in running.values_list("pk", "kind", "last_sign"):
        kind = registered.get(kind_name)
        limit = kind.time_limit if kind else DEFAULT_TIME_LIMIT
        if now - last_sign <= limit:
            continue
        # Unless it reported progress since it was read.
        silent = Job.objects.filter(pk=job_id, state=Job.State.RUNNING).exclude(
            heartbeat_at__gt=now - limit
        )
        reaped += silent.update(
            state=Job.State.FAILED,
            finished_at=now,
            error=(
                f"No progress for over {_duration(limit)}: the process running it "
                "ended (a restart, a crash or a timeout) without finishing it."
            ),
        )
    return reaped


def _duration(limit: timedelta) -> str:
    minutes = round(limit.total_seconds() / 60)
    if minutes % 60 == 0:
        hours = minutes // 60
        return f"{hours} hour{'s' if hours != 1 else ''}"
    return f"{minutes} minute{'s' if minutes != 1 else ''}"


def requeue_unavailable() -> int:
    """Send again the jobs that could not reach the broker; return how many went."""
    sent = 0
    for job in Job.objects.filter(state=Job.State.UNAVAILABLE).order_by("created_at"):
        if not _publish(get_kind(job.kind), job.pk):
            break
        sent += 1
    return sent


def _publish(kind: JobKind, job_id: int) -> bool:
    # Only a job still waiting: one a worker has claimed meanwhile stays running.
    Job.objects.filter(
        pk=job_id, state__in=[Job.State.QUEUED, Job.State.UNAVAILABLE]
    ).update(state=Job.State.QUEUED, queued_at=timezone.now(), message="")
    try:
        kind.task.apply_async((job_id,), retry=False)
    except OperationalError as error:
        logger.warning("Job %s could not reach the broker: %s", job_id, error)
        Job.objects.filter(pk=job_id, state=Job.State.QUEUED).update(
            state=Job.State.UNAVAILABLE,
            message=(
                "The job queue could not be reached. The job is kept and is queued "
                "again when the queue is back."
            ),
        )
        return False
    return True


def _stale(job: Job) -> bool:
    return (
        job.state == Job.State.QUEUED
        and job.queued_at is not None
        and timezone.now() - job.queued_at > STALE_AFTER
    )


def describe(started: Started) -> tuple[str, int]:
    """Say what became of a request to start a job, and at what message level."""
    job = started.job
    kind = get_kind(job.kind)
    what = f"{kind.label}{f' of {job.target_label}' if job.target_label else ''}"
    if job.state == Job.State.UNAVAILABLE:
        return (
            f"The job queue is unavailable: {what} is kept and will be queued as "
            "soon as the queue is back.",
            messages.WARNING,
        )
    if not started.created and job.is_open:
        return f"{what} was already {job.get_state_display().lower()}.", messages.INFO
    if job.ran_in_foreground and job.is_open:
        return (
            f"No job queue is configured, so {what} runs in the background of this "
            "server; this page follows it.",
            messages.SUCCESS,
        )
    if job.state == Job.State.FAILED:
        return f"{what} failed: {job.error}", messages.ERROR
    if job.state == Job.State.DONE:
        if job.ran_in_foreground:
            what = f"No job queue is configured, so it ran here: {what}"
        return f"{what} is done. {job.summary}", messages.SUCCESS
    return f"{what} is queued.", messages.SUCCESS
