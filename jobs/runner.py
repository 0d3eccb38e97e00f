"""Running one job: claim its row, do the work, record progress and the outcome."""

import logging
import math
import time
from typing import TYPE_CHECKING

from django.db import IntegrityError, transaction
from django.db.models import F
from django.utils import timezone

from jobs.models import Job

if TYPE_CHECKING:
    from jobs.registry import JobKind

logger = logging.getLogger(__name__)

# Progress is written at most this often (seconds), and always at the end.
PROGRESS_EVERY = 0.5


class JobFailed(Exception):
    """Raised by the work to end its job as failed, with this message as its error."""


class _Progress:
    """The progress(done, total, message) callable handed to the work."""

    def __init__(self, job_id: int) -> None:
        self.job_id = job_id
        self.written_at = -math.inf
        self.unwritten: tuple[int, int, str] | None = None

    def __call__(self, done: int, total: int, message: str = "") -> None:
        self.unwritten = (done, total, message)
        if done >= total or time.monotonic() - self.written_at >= PROGRESS_EVERY:
            self.flush()

    def flush(self) -> None:
        if self.unwritten is None:
            return
        done, total, message = self.unwritten
        total = max(total, 0)
        Job.objects.filter(pk=self.job_id).update(
            done=min(max(done, 0), total),
            total=total,
            message=message[:300],
            heartbeat_at=timezone.now(),
        )
        self.written_at = time.monotonic()
        self.unwritten = None


def execute(kind: "JobKind", job_id: int | None) -> str:
    """Run the job `job_id` of `kind` (a new one when None) and return its summary."""
    if job_id is None:
        job_id = _scheduled_job(kind)
        if job_id is None:
            return "Skipped: the same work is already queued or running."
    claimed = Job.objects.filter(
        pk=job_id, state__in=[Job.State.QUEUED, Job.State.UNAVAILABLE]
    ).update(
        state=Job.State.RUNNING,
        started_at=timezone.now(),
        heartbeat_at=timezone.now(),
        error="",
    )
    # A message delivered twice, or a job deleted meanwhile, is not run again.
    if not claimed:
        return "Skipped: the job is not waiting to run."
    job = Job.objects.get(pk=job_id)
    target = None
    if kind.target_model is not None:
        target = kind.target_model._default_manager.filter(pk=job.target).first()
        if target is None:
            return _finish(
                job_id, Job.State.FAILED, error="Its record no longer exists."
            )
    progress = _Progress(job_id)
    try:
        summary = kind.run(target, progress)
    except JobFailed as failure:
        progress.flush()
        return _finish(job_id, Job.State.FAILED, error=str(failure))
    except Exception as error:
        logger.exception("Job %s (%s) failed", job_id, kind.name)
        progress.flush()
        return _finish(
            job_id, Job.State.FAILED, error=f"{type(error).__name__}: {error}"
        )
    progress.flush()
    return _finish(job_id, Job.State.DONE, summary=summary)


def _scheduled_job(kind: "JobKind") -> int | None:
    try:
        with transaction.atomic():
            job = Job.objects.create(kind=kind.name, queued_at=timezone.now())
    except IntegrityError:
        return None
    return job.pk


def _finish(job_id: int, state: str, *, summary: str = "", error: str = "") -> str:
    fields = {"state": state, "finished_at": timezone.now(), "error": error}
    if state == Job.State.DONE:
        fields.update(summary=summary, done=F("total"))
    Job.objects.filter(pk=job_id).update(**fields)
    return summary or error
