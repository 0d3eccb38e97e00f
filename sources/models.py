from django.conf import settings
from django.db import models


class Target(models.TextChoices):
    """The kinds of record an import proposes."""

    PUBLICATION = "publication", "Publication"
    PERSON = "person", "Member"
    EDUCATION = "education", "Education"
    EXPERIENCE = "experience", "Experience"
    LINK = "link", "Link"
    INTEREST = "interest", "Research interest"


class CandidateQuerySet(models.QuerySet):
    def pending(self) -> "CandidateQuerySet":
        return self.filter(status=Candidate.Status.PENDING)


class Candidate(models.Model):
    """What an import found new or different, waiting for a reviewer's decision."""

    class Kind(models.TextChoices):
        CREATE = "create", "New record"
        UPDATE = "update", "Update"
        DUPLICATE = "duplicate", "Possible duplicate"

    class Status(models.TextChoices):
        PENDING = "pending", "Pending"
        ACCEPTED = "accepted", "Accepted"
        REJECTED = "rejected", "Rejected"

    kind = models.CharField(max_length=10, choices=Kind.choices)
    status = models.CharField(
        max_length=10, choices=Status.choices, default=Status.PENDING
    )
    target = models.CharField(max_length=20, choices=Target.choices)
    person = models.ForeignKey(
        "people.Person",
        null=True,
        blank=True,
        on_delete=models.CASCADE,
        related_name="source_candidates",
        help_text="The member the record belongs to.",
    )
    object_id = models.PositiveBigIntegerField(
        null=True, blank=True, help_text="The existing record an update changes."
    )
    source = models.CharField(max_length=20)
    source_id = models.CharField(max_length=200, blank=True)
    label = models.CharField(max_length=500, help_text="What the record is.")
    values = models.JSONField(default=dict, help_text="The record as proposed.")
    diff = models.JSONField(
        default=list,
        blank=True,
        help_text="Per field: the current and the proposed value, and whether the "
        "current one was edited by hand.",
    )
    note = models.CharField(max_length=500, blank=True)
    # The same proposal from the same source is one candidate, whatever its fate:
    # a rejected one does not come back, a pending one is not repeated.
    fingerprint = models.CharField(max_length=64, unique=True)
    created_at = models.DateTimeField(auto_now_add=True)
    decided_at = models.DateTimeField(null=True, blank=True)
    decided_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="+",
    )

    objects = CandidateQuerySet.as_manager()

    class Meta:
        ordering = ["-created_at", "id"]
        indexes = [models.Index(fields=["status", "target"])]

    def __str__(self) -> str:
        return f"{self.get_kind_display()}: {self.label}"


class Snapshot(models.Model):
    """The values a source last gave a record: a field that differs from them now
    was edited by hand, and a sync leaves it alone."""

    target = models.CharField(max_length=20, choices=Target.choices)
    object_id = models.PositiveBigIntegerField()
    source = models.CharField(max_length=20)
    values = models.JSONField(default=dict)
    taken_at = models.DateTimeField(auto_now=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["target", "object_id", "source"], name="snapshot_unique"
            )
        ]

    def __str__(self) -> str:
        return f"{self.target} {self.object_id} from {self.source}"
