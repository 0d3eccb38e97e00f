from django.conf import settings
from django.db import models
from django.db.models import F, Q
from django.urls import reverse


class JobQuerySet(models.QuerySet):
    def open(self) -> "JobQuerySet":
        return self.filter(state__in=Job.OPEN_STATES)

    def for_target(self, kind: str, target: str) -> "JobQuerySet":
        return self.filter(kind=kind, target=target)


class Job(models.Model):
    """One piece of long work asked for: what, on what, by whom, and how far it got."""

    class State(models.TextChoices):
        QUEUED = "queued", "Queued"
        RUNNING = "running", "Running"
        DONE = "done", "Done"
        FAILED = "failed", "Failed"
        # The broker could not be reached: kept, and queued again once it is back.
        UNAVAILABLE = "unavailable", "Waiting for the job queue"

    OPEN_STATES = (State.QUEUED, State.RUNNING, State.UNAVAILABLE)

    kind = models.CharField(max_length=100)
    target = models.CharField(
        max_length=64, blank=True, help_text="Primary key of the record worked on."
    )
    target_label = models.CharField(max_length=200, blank=True)
    state = models.CharField(max_length=20, choices=State, default=State.QUEUED)
    done = models.PositiveIntegerField(default=0)
    total = models.PositiveIntegerField(default=0)
    message = models.CharField(max_length=300, blank=True)
    summary = models.TextField(blank=True)
    error = models.TextField(blank=True)
    requested_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="+",
        help_text="Empty when the schedule started it.",
    )
    ran_in_foreground = models.BooleanField(
        default=False, help_text="Run by the process that asked, without a worker."
    )
    created_at = models.DateTimeField(auto_now_add=True)
    queued_at = models.DateTimeField(null=True, blank=True)
    started_at = models.DateTimeField(null=True, blank=True)
    heartbeat_at = models.DateTimeField(
        null=True, blank=True, help_text="When its work last reported progress."
    )
    finished_at = models.DateTimeField(null=True, blank=True)

    objects = JobQuerySet.as_manager()

    class Meta:
        ordering = ["-created_at", "-id"]
        indexes = [models.Index(fields=["state", "created_at"])]
        constraints = [
            models.CheckConstraint(
                condition=Q(done__lte=F("total")),
                name="job_done_within_total",
                violation_error_message="A job cannot have done more than its total.",
            ),
            # "Sync now" pressed twice, or by two people, gives one job.
            models.UniqueConstraint(
                fields=["kind", "target"],
                condition=Q(state__in=["queued", "running", "unavailable"]),
                name="job_one_open_per_target",
                violation_error_message="This work is already queued or running.",
            ),
        ]

    def __str__(self) -> str:
        on = f" of {self.target_label}" if self.target_label else ""
        return f"{self.kind}{on} ({self.get_state_display().lower()})"

    def get_absolute_url(self) -> str:
        return reverse("admin:jobs_job_change", args=[self.pk])

    @property
    def is_open(self) -> bool:
        return self.state in self.OPEN_STATES

    @property
    def percent(self) -> int | None:
        if not self.total:
            return None
        return round(100 * self.done / self.total)
