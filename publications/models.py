from django.conf import settings
from django.core.exceptions import ValidationError
from django.core.validators import MaxValueValidator, MinValueValidator
from django.db import models
from django.db.models import Count, F, Max, Prefetch, Sum
from django.db.models.functions import Lower

from core.identifiers import ArxivIdField, DoiField, OpenAlexWorkField
from core.models import (
    DirectoryQuerySet,
    ExternalLink,
    Provenance,
    Topic,
    year_range_constraint,
    year_validators,
)
from core.paths import slug_path
from search.models import SearchDocument


def validate_put_codes(value: object) -> None:
    """Accept a list of ORCID put-codes: positive whole numbers."""
    if not isinstance(value, list) or not all(
        type(code) is int and code > 0 for code in value
    ):
        raise ValidationError("Put-codes are a list of positive whole numbers.")


def validate_counts_by_year(value: object) -> None:
    """Accept a list of {"year": …, "cited_by_count": …} with whole numbers."""
    ok = isinstance(value, list) and all(
        isinstance(row, dict)
        and set(row) == {"year", "cited_by_count"}
        and all(type(number) is int and number >= 0 for number in row.values())
        for row in value
    )
    if not ok:
        raise ValidationError(
            'Counts by year are a list of {"year": 2024, "cited_by_count": 3}.'
        )


class Venue(models.Model):
    class Kind(models.TextChoices):
        CONFERENCE = "conference", "Conference"
        JOURNAL = "journal", "Journal"
        WORKSHOP = "workshop", "Workshop"
        PREPRINT = "preprint", "Preprint server"
        OTHER = "other", "Other"

    name = models.CharField(max_length=300, unique=True)
    short_name = models.CharField(max_length=60, blank=True)
    slug = models.SlugField(max_length=120, unique=True)
    kind = models.CharField(
        max_length=20, choices=Kind.choices, default=Kind.CONFERENCE
    )
    url = models.URLField(blank=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["short_name", "name"]

    def __str__(self) -> str:
        return self.short_name or self.name


class PublicationQuerySet(DirectoryQuerySet):
    def with_authors(self) -> "PublicationQuerySet":
        """Everything a list row shows, in a fixed number of queries."""
        return self.select_related("venue").prefetch_related(
            Prefetch(
                "authorships",
                queryset=Authorship.objects.select_related("person").order_by(
                    "position"
                ),
            ),
            "links",
            # A row says where its sources disagree, as the paper's page does.
            "conflicts",
        )

    def by_person(self, person) -> "PublicationQuerySet":
        return self.filter(authorships__person=person).distinct()

    def selected(self) -> "PublicationQuerySet":
        return self.filter(selected=True)

    def newest_first(self) -> "PublicationQuerySet":
        return self.order_by(*NEWEST_FIRST)

    def citation_summary(self) -> dict:
        """How many records, their citations in all, and when counts were last read."""
        return self.aggregate(
            count=Count("pk"),
            cited_by_count=Sum("cited_by_count"),
            retrieved_at=Max("citations_retrieved_at"),
        )


# Undated works ("n.d.") last, on every database: PostgreSQL puts NULL first when
# descending, SQLite last.
NEWEST_FIRST = (F("year").desc(nulls_last=True), "-month", "title", "id")


class Publication(Provenance, models.Model):
    class Status(models.TextChoices):
        PUBLISHED = "published", "Published"
        ACCEPTED = "accepted", "Accepted"
        UNDER_REVIEW = "under_review", "Under review"
        PREPRINT = "preprint", "Preprint"
        # The source lists the work without saying where it stands.
        NOT_STATED = "not_stated", "Status not stated"

    class Kind(models.TextChoices):
        # The source does not say what kind of work it is.
        NOT_STATED = "", "Kind not stated"
        CONFERENCE_PAPER = "conference_paper", "Conference paper"
        JOURNAL_ARTICLE = "journal_article", "Journal article"
        WORKSHOP_PAPER = "workshop_paper", "Workshop paper"
        PREPRINT = "preprint", "Preprint"
        TECHNICAL_REPORT = "technical_report", "Technical report"
        SOFTWARE = "software", "Software"
        THESIS = "thesis", "Thesis"
        OTHER = "other", "Other"

    class Presentation(models.TextChoices):
        NONE = "", "—"
        ORAL = "oral", "Oral"
        SPOTLIGHT = "spotlight", "Spotlight"
        POSTER = "poster", "Poster"

    title = models.CharField(max_length=500)
    alternative_title = models.CharField(
        max_length=500, blank=True, help_text="Another title the work is listed under."
    )
    working_title = models.BooleanField(
        default=False,
        help_text="The source names only the method or project, not a paper title.",
    )
    slug = models.SlugField(max_length=120, unique=True)
    # Both default to "not stated": a record says what its source says, no more.
    kind = models.CharField(
        max_length=30, choices=Kind.choices, blank=True, default=Kind.NOT_STATED
    )
    year = models.PositiveSmallIntegerField(
        null=True,
        blank=True,
        validators=year_validators,
        help_text="Blank when the source gives none: shown as “n.d.”.",
    )
    month = models.PositiveSmallIntegerField(
        null=True, blank=True, validators=[MinValueValidator(1), MaxValueValidator(12)]
    )
    venue = models.ForeignKey(
        Venue,
        null=True,
        blank=True,
        on_delete=models.PROTECT,
        related_name="publications",
    )
    venue_detail = models.CharField(
        max_length=300, blank=True, help_text="Track, volume or full proceedings title."
    )
    status = models.CharField(
        max_length=20, choices=Status.choices, default=Status.NOT_STATED
    )
    presentation = models.CharField(
        max_length=20, choices=Presentation.choices, blank=True, default=""
    )
    selected = models.BooleanField(
        default=False,
        help_text="Featured by a member among their selected publications.",
    )
    authors_complete = models.BooleanField(
        default=True, help_text="Untick when the source names only some of the authors."
    )
    authors_source = models.CharField(
        max_length=300,
        blank=True,
        help_text="Where the author list comes from when the member's page does not "
        "give it: the public record's URL or citation.",
    )
    summary = models.TextField(blank=True)
    abstract = models.TextField(
        blank=True, help_text="The work's own abstract, as its source gives it."
    )
    key_results = models.TextField(blank=True)
    doi = DoiField(
        "DOI",
        max_length=200,
        blank=True,
        db_index=True,
        help_text="As 10.1145/3531146.3533088; a pasted https://doi.org/ link is "
        "shortened.",
    )
    arxiv_id = ArxivIdField("arXiv id", max_length=40, blank=True, db_index=True)
    openalex_id = OpenAlexWorkField(
        "OpenAlex work id", max_length=20, blank=True, db_index=True
    )
    orcid_put_codes = models.JSONField(
        "ORCID put-codes",
        default=list,
        blank=True,
        validators=[validate_put_codes],
        help_text="The work's ids in its authors' ORCID records.",
    )
    cited_by_count = models.PositiveIntegerField(
        "cited by", null=True, blank=True, help_text="Citations, as OpenAlex counts."
    )
    counts_by_year = models.JSONField(
        default=list,
        blank=True,
        validators=[validate_counts_by_year],
        help_text="Citations per year, as OpenAlex counts.",
    )
    citations_retrieved_at = models.DateTimeField(
        null=True, blank=True, help_text="When the citation counts were read."
    )
    pages = models.CharField(max_length=40, blank=True)
    volume = models.CharField(max_length=40, blank=True)
    number = models.CharField(max_length=40, blank=True)
    bibtex = models.TextField(
        blank=True, help_text="The source's BibTeX, kept verbatim."
    )
    citation_key = models.CharField(
        max_length=200, blank=True, help_text="The key of the source's BibTeX entry."
    )
    cite_key = models.CharField(
        "key",
        max_length=200,
        blank=True,
        editable=False,
        help_text="The key the work is cited by here, on its page, in the API and "
        "in every export: the source's own key, else made from the first author, "
        "year and title; a letter is added where another work holds it.",
    )
    source_file = models.CharField(
        max_length=200,
        blank=True,
        help_text="The BibTeX file the record was last imported from. Any file "
        "that names the work by DOI, arXiv id or citation key updates it. Blank "
        "for records kept by hand, which an import only completes.",
    )
    needs_review = models.BooleanField(
        default=False,
        help_text="Set by an import that had to fill a gap of its source (a title "
        "taken from another field); untick once checked.",
    )
    topics = models.ManyToManyField(Topic, blank=True, related_name="publications")
    updated_at = models.DateTimeField(auto_now=True)

    objects = PublicationQuerySet.as_manager()

    class Meta:
        ordering = NEWEST_FIRST
        indexes = [
            models.Index(fields=["year", "id"]),
            models.Index(fields=["status"]),
            models.Index(fields=["source_file", "citation_key"]),
            # The default "newest first" order: pages read it without sorting.
            models.Index(
                fields=["-year", "-month", "title", "id"], name="publication_newest"
            ),
        ]
        constraints = [
            year_range_constraint("year", nullable=True),
            # BibTeX compares keys without case.
            models.UniqueConstraint(
                Lower("cite_key"),
                condition=~models.Q(cite_key=""),
                name="publication_unique_cite_key",
            ),
            models.CheckConstraint(
                condition=models.Q(month__isnull=True)
                | models.Q(month__gte=1, month__lte=12),
                name="publication_month_valid",
                violation_error_message="Month must lie between 1 and 12.",
            ),
        ]

    def __str__(self) -> str:
        return self.title

    def get_absolute_url(self) -> str:
        return slug_path("publications:detail", self.slug)

    @property
    def year_label(self) -> str:
        """The year as printed: "n.d." (no date) when the source gives none."""
        return "n.d." if self.year is None else str(self.year)

    @property
    def venue_label(self) -> str:
        if self.venue is None:
            return self.venue_detail
        return str(self.venue)

    @property
    def status_note(self) -> str:
        """The status as a note for citations: blank when published or not stated;
        "Under review at ICLR 2026" where the source names where it is reviewed."""
        if self.status in (self.Status.PUBLISHED, self.Status.NOT_STATED):
            return ""
        where = self.venue_detail or self.venue_label
        if self.under_review and where:
            return f"Under review at {where}"
        return self.get_status_display()

    @property
    def under_review(self) -> bool:
        return self.status == self.Status.UNDER_REVIEW

    @property
    def cited_year(self) -> int | None:
        """The year citations give: none for a work under review, which has no year
        of publication yet (the year stored is that of the venue reviewing it)."""
        return None if self.under_review else self.year

    @property
    def venue_statements(self) -> list[str]:
        """What the sources say of the venue where they disagree, else nothing
        (reads `conflicts`: prefetch it for a list)."""
        if self._state.adding:  # an unsaved record has no rows of its own
            return []
        return [
            statement
            for conflict in self.conflicts.all()
            if conflict.about.strip().lower() == "venue"
            for statement in conflict.statement_list
        ]

    @property
    def venue_conflict_note(self) -> str:
        statements = self.venue_statements
        if not statements:
            return ""
        return "The sources disagree on the venue: " + "; ".join(statements)

    @property
    def cited_venue(self) -> str:
        """Where citations say the work appeared: nothing while it is under review
        or while the sources disagree on the venue (a note names them instead)."""
        if self.under_review or self.venue_statements:
            return ""
        return self.venue.name if self.venue else self.venue_detail

    @property
    def authors_incomplete_note(self) -> str:
        if self.authors_complete:
            return ""
        return "The source names only some of the authors."

    @property
    def ordered_authors(self) -> list["Authorship"]:
        """The authors whose place a source gives, in print order."""
        return [a for a in self.authorships.all() if not a.position_unknown]

    @property
    def unplaced_authors(self) -> list["Authorship"]:
        """The authors a source names without saying where in the list they stand."""
        return [a for a in self.authorships.all() if a.position_unknown]

    @property
    def author_order_note(self) -> str:
        """Why citations leave some authors out of the author list, or blank."""
        names = [a.name for a in self.unplaced_authors]
        if not names:
            return ""
        return (
            f"Authors include {', '.join(names)}; the source does not give "
            "the order of the authors."
        )


class Authorship(models.Model):
    """One author in print order: a member is linked, anyone else kept as a name."""

    publication = models.ForeignKey(
        Publication, on_delete=models.CASCADE, related_name="authorships"
    )
    position = models.PositiveSmallIntegerField(help_text="1 for the first author.")
    name = models.CharField(max_length=200, help_text="The name as printed.")
    family_name = models.CharField(
        max_length=200,
        blank=True,
        help_text="Only when the last word of the name is not the family name: "
        "“van Beethoven”, “García Márquez”, an organisation's whole name.",
    )
    person = models.ForeignKey(
        "people.Person",
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="authorships",
    )
    equal_contribution = models.BooleanField(
        default=False, help_text="Co-first (equal contribution), marked * in print."
    )
    corresponding = models.BooleanField(default=False)
    position_unknown = models.BooleanField(
        default=False,
        help_text="The source names this author but not where in the list: "
        "position only keeps the rows apart, and no citation puts them first.",
    )

    class Meta:
        ordering = ["publication", "position"]
        constraints = [
            models.UniqueConstraint(
                fields=["publication", "position"],
                name="authorship_unique_position",
                violation_error_message="Two authors cannot share a position.",
            ),
            models.CheckConstraint(
                condition=models.Q(position__gte=1),
                name="authorship_position_positive",
                violation_error_message="Author positions start at 1.",
            ),
        ]
        indexes = [models.Index(fields=["person", "publication"])]

    def __str__(self) -> str:
        if self.position_unknown:
            return f"{self.name} (position not given)"
        return f"{self.position}. {self.name}"


class SourceConflict(models.Model):
    """Statements of the sources that disagree about a publication, kept as given."""

    publication = models.ForeignKey(
        Publication, on_delete=models.CASCADE, related_name="conflicts"
    )
    about = models.CharField(
        max_length=100, help_text="What they disagree on: “venue”."
    )
    statements = models.TextField(
        help_text="One line for each place, as it is worded there: "
        "“Publication list: ICLR 2025”."
    )
    position = models.PositiveSmallIntegerField(default=0)

    class Meta:
        ordering = ["position", "id"]

    def __str__(self) -> str:
        return f"{self.publication}: {self.about}"

    @property
    def statement_list(self) -> list[str]:
        return [line for line in self.statements.splitlines() if line.strip()]


class PublicationLink(ExternalLink):
    class Kind(models.TextChoices):
        PAPER = "paper", "Paper"
        PDF = "pdf", "PDF"
        ARXIV = "arxiv", "arXiv"
        CODE = "code", "Code"
        DEMO = "demo", "Demo"
        PROJECT = "project", "Project"
        POSTER = "poster", "Poster"
        VIDEO = "video", "Video"
        SLIDES = "slides", "Slides"
        OTHER = "other", "Other"

    publication = models.ForeignKey(
        Publication, on_delete=models.CASCADE, related_name="links"
    )
    kind = models.CharField(max_length=20, choices=Kind.choices, default=Kind.PAPER)


class PublicationSearchDocument(SearchDocument):
    publication = models.OneToOneField(
        Publication,
        primary_key=True,
        on_delete=models.CASCADE,
        related_name="search_document",
    )


class BibtexUpload(models.Model):
    """A BibTeX file too large to read within a request: previewed, then imported,
    by a job (`publications.jobs`)."""

    source = models.CharField(max_length=200)
    text = models.TextField(help_text="Emptied once the file is imported.")
    person = models.ForeignKey(
        "people.Person", null=True, blank=True, on_delete=models.SET_NULL
    )
    keep_private = models.BooleanField(default=False)
    skip_invalid = models.BooleanField(default=False)
    confirmed = models.BooleanField(
        default=False, help_text="Import it; until then its job previews it."
    )
    # The report as the preview page shows it, rendered by the job: what a worker
    # found cannot travel back to a request in any other form.
    report_html = models.TextField(blank=True)
    requested_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL
    )
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-created_at"]

    def __str__(self) -> str:
        return self.source
