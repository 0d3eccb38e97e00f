import datetime

from django.db import models
from django.utils import timezone

from core.dates import Precision
from core.lib.dates import format_partial
from core.models import DirectoryQuerySet, ExternalLink, Topic
from core.paths import slug_path
from search.models import SearchDocument


class EventQuerySet(DirectoryQuerySet):
    def upcoming(self, today: datetime.date | None = None) -> "EventQuerySet":
        today = today or timezone.localdate()
        return self.filter(date__gte=today).order_by("date", "id")

    def past(self, today: datetime.date | None = None) -> "EventQuerySet":
        today = today or timezone.localdate()
        return self.filter(date__lt=today).order_by("-date", "-id")

    def news(self) -> "EventQuerySet":
        return self.exclude(kind__in=Event.TALK_KINDS)

    def talks(self) -> "EventQuerySet":
        return self.filter(kind__in=Event.TALK_KINDS)

    def for_lists(self) -> "EventQuerySet":
        return self.prefetch_related("people", "links")


class Event(models.Model):
    """A dated happening: news, a talk, an accepted paper, a release, an award."""

    class Kind(models.TextChoices):
        NEWS = "news", "News"
        TALK = "talk", "Talk"
        SEMINAR = "seminar", "Seminar"
        PANEL = "panel", "Panel"
        PAPER = "paper", "Paper accepted"
        RELEASE = "release", "Release"
        AWARD = "award", "Award"
        PROJECT = "project", "Project"

    TALK_KINDS = (Kind.TALK, Kind.SEMINAR, Kind.PANEL)

    kind = models.CharField(max_length=20, choices=Kind.choices, default=Kind.NEWS)
    title = models.CharField(max_length=400)
    slug = models.SlugField(max_length=140, unique=True)
    date = models.DateField()
    date_precision = models.CharField(
        max_length=5, choices=Precision.choices, default=Precision.DAY
    )
    end_date = models.DateField(null=True, blank=True)
    location = models.CharField(max_length=300, blank=True)
    host = models.CharField(max_length=300, blank=True, help_text="Host or venue.")
    description = models.TextField(blank=True, help_text="Markdown.")
    people = models.ManyToManyField("people.Person", blank=True, related_name="events")
    # A news item may announce several papers at once.
    publications = models.ManyToManyField(
        "publications.Publication", blank=True, related_name="events"
    )
    topics = models.ManyToManyField(Topic, blank=True, related_name="events")
    updated_at = models.DateTimeField(auto_now=True)

    objects = EventQuerySet.as_manager()

    class Meta:
        ordering = ["-date", "-id"]
        indexes = [models.Index(fields=["date"]), models.Index(fields=["kind", "date"])]
        constraints = [
            models.CheckConstraint(
                condition=models.Q(end_date__isnull=True)
                | models.Q(end_date__gte=models.F("date")),
                name="event_end_not_before_start",
                violation_error_message="The end date cannot be before the start date.",
            ),
        ]

    def __str__(self) -> str:
        return self.title

    def get_absolute_url(self) -> str:
        return slug_path("events:detail", self.slug)

    @property
    def is_talk(self) -> bool:
        return self.kind in self.TALK_KINDS

    @property
    def date_display(self) -> str:
        start = format_partial(self.date, self.date_precision)
        if self.end_date and self.end_date != self.date:
            return f"{start} – {format_partial(self.end_date, self.date_precision)}"
        return start


class EventLink(ExternalLink):
    class Kind(models.TextChoices):
        PAGE = "page", "Page"
        VIDEO = "video", "Video"
        SLIDES = "slides", "Slides"
        PAPER = "paper", "Paper"
        CODE = "code", "Code"
        PROJECT = "project", "Project"
        OTHER = "other", "Other"

    event = models.ForeignKey(Event, on_delete=models.CASCADE, related_name="links")
    kind = models.CharField(max_length=20, choices=Kind.choices, default=Kind.PAGE)


class EventSearchDocument(SearchDocument):
    event = models.OneToOneField(
        Event,
        primary_key=True,
        on_delete=models.CASCADE,
        related_name="search_document",
    )
