"""A member and their profile: the person, the profile's sections (education,
experience, awards, service, teaching, open source, skills, interests), their
topics, search document and similar members.

Long because an app's records live in its models.py, as Django lays an app out:
the profile's many small sections read best beside the Person they describe.
"""

import datetime
import unicodedata

from django.core.exceptions import ValidationError
from django.db import models
from django.db.models.functions import Coalesce, Least, NullIf

from core.dates import DateRange
from core.identifiers import OpenAlexAuthorField, OrcidField
from core.images import delete_when_unused, stored_files
from core.models import (
    DirectoryQuerySet,
    ExternalLink,
    Organization,
    Provenance,
    Topic,
    year_range_constraint,
    year_validators,
)
from core.paths import slug_path
from people.photos import reencode_photo, validate_photo
from search.models import SearchDocument


def script_language(text: str) -> str:
    """zh, ja or ko by the script a name is written in ("" for other scripts).

    Kana mark Japanese and Hangul Korean; Han characters alone read as Chinese.
    """
    scripts = {unicodedata.name(char, "").split(" ")[0] for char in text}
    if scripts & {"HIRAGANA", "KATAKANA"}:
        return "ja"
    if "HANGUL" in scripts:
        return "ko"
    if "CJK" in scripts:
        return "zh"
    return ""


class Role(models.TextChoices):
    # Declaration order is the order of the groups on the people page.
    FACULTY = "faculty", "Faculty"
    SENIOR_RESEARCH_SCIENTIST = "senior_research_scientist", "Senior research scientist"
    RESEARCHER = "researcher", "Researcher"
    POSTDOC = "postdoc", "Postdoctoral researcher"
    PHD_STUDENT = "phd_student", "PhD student"
    MASTERS_STUDENT = "masters_student", "Master's student"
    UNDERGRADUATE = "undergraduate", "Undergraduate student"
    ENGINEER = "engineer", "Research engineer"
    VISITOR = "visitor", "Visitor"
    STAFF = "staff", "Staff"


ROLE_ORDER = {value: index for index, value in enumerate(Role.values)}
# Current members first, then by role as the people page groups them (the
# `role_order` alias comes from PersonQuerySet.with_role_order).
BY_ROLE = ("-status", "role_order", "family_name", "given_name", "pk")
# The member's rows that record when they were read from their source.
RETRIEVED_PATHS = (
    "authorships__publication__retrieved_at",
    "education__retrieved_at",
    "experience__retrieved_at",
)
# Stands for "never read" inside LEAST(), which gives NULL on SQLite when any
# argument is NULL (PostgreSQL skips NULLs).
_NEVER = datetime.datetime(9999, 1, 1, tzinfo=datetime.UTC)


def profile_prefetches() -> list:
    """The related records a profile shows (see `prefetch_related_objects`)."""
    return [
        "topics",
        "links",
        "research_areas",
        "education__organization",
        models.Prefetch(
            "experience",
            queryset=Experience.objects.select_related(
                "organization", "publication"
            ).prefetch_related("links"),
        ),
        "awards",
        "service",
        "teaching__organization",
        models.Prefetch(
            "open_source",
            queryset=OpenSourceContribution.objects.select_related(
                "publication"
            ).prefetch_related("links"),
        ),
        "skills",
        "interests",
    ]


# Paths under /people/ that are pages rather than profiles.
RESERVED_SLUGS = {"network"}
PHOTO_FIELDS = ["photo", "photo_thumbnail"]


class PersonQuerySet(DirectoryQuerySet):
    def current(self) -> "PersonQuerySet":
        return self.filter(status=Person.Status.CURRENT)

    def alumni(self) -> "PersonQuerySet":
        return self.filter(status=Person.Status.ALUMNI)

    def for_cards(self) -> "PersonQuerySet":
        return self.select_related("organization")

    def with_profile(self) -> "PersonQuerySet":
        """Every section of a profile, in a fixed number of queries."""
        return self.select_related("organization").prefetch_related(
            *profile_prefetches()
        )

    def with_role_order(self) -> "PersonQuerySet":
        """Alias `role_order`: the position of the member's role in Role."""
        return self.alias(
            role_order=models.Case(
                *(
                    models.When(role=v, then=models.Value(i))
                    for i, v in enumerate(Role.values)
                ),
                default=models.Value(len(Role.values)),
                output_field=models.IntegerField(),
            )
        )

    def by_role(self) -> "PersonQuerySet":
        """Current members first, then by role as the people page groups them."""
        return self.with_role_order().order_by(*BY_ROLE)

    def with_oldest_retrieval(self) -> "PersonQuerySet":
        """Annotate `oldest_retrieved_at`: when the stalest row of the member's
        publications, education and experience was read from its source (null
        when none was)."""
        never = models.Value(_NEVER, output_field=models.DateTimeField())
        oldest = [
            Coalesce(
                models.Subquery(
                    Person.objects.filter(pk=models.OuterRef("pk"))
                    .order_by()
                    .annotate(oldest=models.Min(path))
                    .values("oldest")
                ),
                never,
            )
            for path in RETRIEVED_PATHS
        ]
        return self.annotate(oldest_retrieved_at=NullIf(Least(*oldest), never))


class Person(models.Model):
    """A member of the group, with everything their own home page would show."""

    class Status(models.TextChoices):
        CURRENT = "current", "Current member"
        ALUMNI = "alumni", "Alumni"

    given_name = models.CharField(max_length=100)
    family_name = models.CharField(max_length=100)
    display_name = models.CharField(
        max_length=200,
        help_text="The name as the member writes it, e.g. “Jingwei Zuo”.",
    )
    preferred_name = models.CharField(
        max_length=100, blank=True, help_text="A name used day to day, e.g. “Chris”."
    )
    native_name = models.CharField(
        max_length=100,
        blank=True,
        help_text="The name in its native script, e.g. 左京伟.",
    )
    pronunciation = models.CharField(
        max_length=100, blank=True, help_text="A guide such as /dzwaw Jeeng-way/."
    )
    slug = models.SlugField(max_length=120, unique=True)
    role = models.CharField(max_length=40, choices=Role.choices)
    position_title = models.CharField(
        max_length=200,
        blank=True,
        help_text="Current position as stated, e.g. “2nd-year Ph.D.”.",
    )
    headline = models.CharField(max_length=300, blank=True)
    organization = models.ForeignKey(
        Organization,
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="members",
        help_text="Current organisation.",
    )
    team = models.CharField(max_length=200, blank=True)
    location = models.CharField(max_length=200, blank=True)
    office = models.CharField(max_length=300, blank=True)
    email = models.EmailField(blank=True)
    secondary_email = models.EmailField(blank=True)
    publish_email = models.BooleanField(
        default=False,
        help_text="The member agrees to their addresses being published: the "
        "profile writes them obfuscated, the contact card (.vcf) plainly. Unticked, "
        "no page, card or API shows them.",
    )
    bio = models.TextField(
        blank=True, help_text="Markdown; raw HTML is removed on render."
    )
    research_summary = models.TextField(blank=True, help_text="Markdown.")
    quote = models.TextField(blank=True)
    quote_author = models.CharField(max_length=200, blank=True)
    photo = models.ImageField(
        upload_to="people/", blank=True, validators=[validate_photo]
    )
    photo_thumbnail = models.ImageField(
        upload_to="people/thumbs/", blank=True, editable=False
    )
    photo_alt = models.CharField(max_length=300, blank=True)
    status = models.CharField(
        max_length=10, choices=Status.choices, default=Status.CURRENT
    )
    orcid = OrcidField(
        "ORCID iD",
        blank=True,
        help_text="As 0000-0002-1825-0097; a pasted https://orcid.org/ link is "
        "shortened.",
    )
    openalex_id = OpenAlexAuthorField(
        "OpenAlex author id",
        max_length=20,
        blank=True,
        db_index=True,
        help_text="As A5023888391; a pasted https://openalex.org/ link is shortened.",
    )
    topics = models.ManyToManyField(
        Topic, blank=True, related_name="people", verbose_name="research interests"
    )
    written_from = models.CharField(
        max_length=300,
        blank=True,
        help_text="The page the member's lab file was written from, as the file "
        "says: “the member's own page (seed 002)”.",
    )
    lab_file = models.CharField(
        max_length=200,
        blank=True,
        editable=False,
        help_text="The lab file the member was last loaded from; blank for a "
        "member entered in the admin.",
    )
    updated_at = models.DateTimeField(auto_now=True)

    objects = PersonQuerySet.as_manager()

    class Meta:
        ordering = ["family_name", "given_name"]
        verbose_name_plural = "people"
        indexes = [models.Index(fields=["status", "role"])]
        constraints = [
            models.UniqueConstraint(
                fields=["orcid"],
                condition=~models.Q(orcid=""),
                name="person_orcid_unique",
                violation_error_message="Another member has this ORCID iD.",
            )
        ]

    def __str__(self) -> str:
        return self.display_name

    def save(self, *args, **kwargs) -> None:
        uploaded = self.photo and not getattr(self.photo, "_committed", True)
        replaced = set()
        if uploaded or self.photo_thumbnail and not self.photo:
            replaced = stored_files(self, PHOTO_FIELDS)
        if uploaded:
            # A fresh upload: store re-encoded bytes under a generated name.
            photo, thumb = reencode_photo(self.photo)
            self.photo.save(photo.name, photo, save=False)
            self.photo_thumbnail.save(thumb.name, thumb, save=False)
        elif not self.photo:
            self.photo_thumbnail = ""
        super().save(*args, **kwargs)
        delete_when_unused(Person, PHOTO_FIELDS, replaced)

    def get_absolute_url(self) -> str:
        return slug_path("people:detail", self.slug)

    def clean(self) -> None:
        if self.slug in RESERVED_SLUGS:
            raise ValidationError(
                {"slug": f"“{self.slug}” is the address of a page of the site."}
            )

    @property
    def native_name_lang(self) -> str:
        """The language tag the native name's script suggests ("" when unclear)."""
        return script_language(self.native_name)

    @property
    def titles(self) -> list[str]:
        """The role and the position title, once each when they say the same."""
        role = self.get_role_display()
        if not self.position_title or self.position_title.casefold() == role.casefold():
            return [role]
        return [role, self.position_title]

    @property
    def initials(self) -> str:
        return (self.given_name[:1] + self.family_name[:1]).upper()

    @property
    def group_label(self) -> str:
        """The heading a member is listed under on the people page."""
        if self.status == self.Status.ALUMNI:
            return "Alumni"
        return self.get_role_display()

    @property
    def role_order(self) -> int:
        return ROLE_ORDER.get(self.role, len(ROLE_ORDER))


class PersonLink(ExternalLink):
    class Kind(models.TextChoices):
        HOMEPAGE = "homepage", "Homepage"
        GITHUB = "github", "GitHub"
        SCHOLAR = "scholar", "Google Scholar"
        ORCID = "orcid", "ORCID"
        LINKEDIN = "linkedin", "LinkedIn"
        TWITTER = "twitter", "X / Twitter"
        INSTAGRAM = "instagram", "Instagram"
        CV = "cv", "CV"
        OTHER = "other", "Other"

    person = models.ForeignKey(Person, on_delete=models.CASCADE, related_name="links")
    kind = models.CharField(max_length=20, choices=Kind.choices, default=Kind.OTHER)


class ResearchArea(models.Model):
    """A research direction with the projects or questions under it."""

    person = models.ForeignKey(
        Person, on_delete=models.CASCADE, related_name="research_areas"
    )
    title = models.CharField(max_length=200)
    subtitle = models.CharField(max_length=200, blank=True)
    items = models.TextField(blank=True, help_text="One item per line.")
    position = models.PositiveSmallIntegerField(default=0)

    class Meta:
        ordering = ["position", "id"]

    def __str__(self) -> str:
        return self.title

    @property
    def item_list(self) -> list[str]:
        return _lines(self.items)


class Education(DateRange, Provenance):
    person = models.ForeignKey(
        Person, on_delete=models.CASCADE, related_name="education"
    )
    organization = models.ForeignKey(
        Organization, on_delete=models.PROTECT, related_name="education_entries"
    )
    unit = models.CharField(
        max_length=200,
        blank=True,
        help_text="School or faculty, e.g. “Courant Institute”.",
    )
    degree = models.CharField(max_length=200)
    field = models.CharField(max_length=200, blank=True)
    location = models.CharField(max_length=200, blank=True)
    advisor = models.CharField(max_length=200, blank=True)
    gpa = models.CharField("GPA", max_length=60, blank=True)
    honours = models.TextField(blank=True, help_text="One per line.")
    notes = models.TextField(blank=True, help_text="One per line.")
    position = models.PositiveSmallIntegerField(default=0)

    class Meta(DateRange.Meta):
        ordering = ["position", "-start_date"]
        verbose_name_plural = "education"

    def __str__(self) -> str:
        return f"{self.degree}, {self.organization}"

    @property
    def honour_list(self) -> list[str]:
        return _lines(self.honours)

    @property
    def note_list(self) -> list[str]:
        return _lines(self.notes)


class Experience(DateRange, Provenance):
    class Kind(models.TextChoices):
        POSITION = "position", "Position"
        INTERNSHIP = "internship", "Internship"
        RESEARCH = "research", "Research project"
        OTHER = "other", "Other"

    person = models.ForeignKey(
        Person, on_delete=models.CASCADE, related_name="experience"
    )
    kind = models.CharField(max_length=20, choices=Kind.choices, default=Kind.POSITION)
    organization = models.ForeignKey(
        Organization,
        null=True,
        blank=True,
        on_delete=models.PROTECT,
        related_name="experience_entries",
    )
    role = models.CharField(max_length=200)
    team = models.CharField(max_length=200, blank=True)
    location = models.CharField(max_length=200, blank=True)
    supervisor = models.CharField(max_length=200, blank=True)
    supervisor_relation = models.CharField(
        max_length=40,
        blank=True,
        help_text="How the source puts it: “Managed by”, “advised by”.",
    )
    notes = models.TextField(blank=True, help_text="Bullet notes, one per line.")
    publication = models.ForeignKey(
        "publications.Publication",
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="experience_entries",
    )
    position = models.PositiveSmallIntegerField(default=0)

    class Meta(DateRange.Meta):
        ordering = ["position", "-start_date"]
        verbose_name_plural = "experience"

    def __str__(self) -> str:
        return f"{self.role} ({self.organization or self.person})"

    @property
    def note_list(self) -> list[str]:
        return _lines(self.notes)


class ExperienceLink(ExternalLink):
    experience = models.ForeignKey(
        Experience, on_delete=models.CASCADE, related_name="links"
    )


class Award(models.Model):
    person = models.ForeignKey(Person, on_delete=models.CASCADE, related_name="awards")
    year = models.PositiveSmallIntegerField(
        null=True, blank=True, validators=year_validators
    )
    title = models.CharField(max_length=300)
    granting_body = models.CharField(max_length=200, blank=True)
    detail = models.CharField(max_length=300, blank=True)
    times = models.CharField(
        max_length=200,
        blank=True,
        help_text="How often it was received, as the source writes it after the "
        "granting body: “× 2 (2015–16 & 2017–18)”.",
    )
    position = models.PositiveSmallIntegerField(default=0)

    class Meta:
        ordering = ["position", "-year"]
        constraints = [year_range_constraint("year", nullable=True)]

    def __str__(self) -> str:
        return f"{self.year or ''} {self.title}".strip()


class Service(models.Model):
    class Kind(models.TextChoices):
        REVIEWER = "reviewer", "Conference reviewer"
        JOURNAL_REVIEWER = "journal_reviewer", "Journal reviewer"
        PROGRAM_COMMITTEE = "program_committee", "Programme committee"
        ARTIFACT_EVALUATION = "artifact_evaluation", "Artifact evaluation"
        CHAIR = "chair", "Chair"
        MEMBERSHIP = "membership", "Membership"
        OTHER = "other", "Other"

    person = models.ForeignKey(Person, on_delete=models.CASCADE, related_name="service")
    kind = models.CharField(max_length=30, choices=Kind.choices)
    role = models.CharField(
        max_length=200, help_text="As stated, e.g. “Artifact evaluator”."
    )
    venue = models.CharField(max_length=300, blank=True)
    year = models.PositiveSmallIntegerField(
        null=True, blank=True, validators=year_validators
    )
    detail = models.CharField(max_length=300, blank=True)
    position = models.PositiveSmallIntegerField(default=0)

    class Meta:
        ordering = ["position", "-year"]
        verbose_name_plural = "service"
        constraints = [year_range_constraint("year", nullable=True)]

    def __str__(self) -> str:
        return f"{self.role}: {self.venue}".rstrip(": ")

    @property
    def venue_display(self) -> str:
        """The venue with its year, unless the venue's name already states it."""
        if self.year is None or str(self.year) in self.venue:
            return self.venue
        return f"{self.venue} {self.year}".strip()


class Teaching(models.Model):
    person = models.ForeignKey(
        Person, on_delete=models.CASCADE, related_name="teaching"
    )
    course_code = models.CharField(max_length=40, blank=True)
    course_title = models.CharField(max_length=200)
    role = models.CharField(max_length=100)
    organization = models.ForeignKey(
        Organization,
        null=True,
        blank=True,
        on_delete=models.PROTECT,
        related_name="courses",
    )
    term = models.CharField(max_length=60, blank=True, help_text="e.g. “Fall 2023”.")
    position = models.PositiveSmallIntegerField(default=0)

    class Meta:
        ordering = ["position", "id"]
        verbose_name_plural = "teaching"

    def __str__(self) -> str:
        return f"{self.course_code} {self.course_title}".strip()


class OpenSourceContribution(models.Model):
    person = models.ForeignKey(
        Person, on_delete=models.CASCADE, related_name="open_source"
    )
    project = models.CharField(max_length=200)
    organization = models.CharField(max_length=200, blank=True)
    role = models.CharField(max_length=100, blank=True)
    start_year = models.PositiveSmallIntegerField(
        null=True, blank=True, validators=year_validators
    )
    end_year = models.PositiveSmallIntegerField(
        null=True, blank=True, validators=year_validators
    )
    description = models.TextField(blank=True)
    publication = models.ForeignKey(
        "publications.Publication", null=True, blank=True, on_delete=models.SET_NULL
    )
    position = models.PositiveSmallIntegerField(default=0)

    class Meta:
        ordering = ["position", "-start_year"]
        constraints = [
            year_range_constraint("start_year", nullable=True),
            year_range_constraint("end_year", nullable=True),
            models.CheckConstraint(
                condition=models.Q(end_year__isnull=True)
                | models.Q(start_year__isnull=True)
                | models.Q(end_year__gte=models.F("start_year")),
                name="people_opensource_end_not_before_start",
                violation_error_message="The end year cannot be before the start year.",
            ),
        ]

    def __str__(self) -> str:
        return self.project

    @property
    def years_display(self) -> str:
        if self.start_year and self.end_year and self.end_year != self.start_year:
            return f"{self.start_year}–{self.end_year}"
        return str(self.start_year or self.end_year or "")

    @property
    def meta_parts(self) -> list[str]:
        """Organisation, role and years: those the source gives, in that order."""
        parts = [self.organization, self.role, self.years_display]
        return [part for part in parts if part]


class ContributionLink(ExternalLink):
    contribution = models.ForeignKey(
        OpenSourceContribution, on_delete=models.CASCADE, related_name="links"
    )


class Skill(models.Model):
    person = models.ForeignKey(Person, on_delete=models.CASCADE, related_name="skills")
    category = models.CharField(max_length=100)
    items = models.TextField(help_text="Comma-separated, as stated.")
    position = models.PositiveSmallIntegerField(default=0)

    class Meta:
        ordering = ["position", "id"]

    def __str__(self) -> str:
        return self.category


class Interest(models.Model):
    """An off-duty interest: a sport, music, photography."""

    person = models.ForeignKey(
        Person, on_delete=models.CASCADE, related_name="interests"
    )
    title = models.CharField(max_length=100)
    description = models.TextField(blank=True)
    position = models.PositiveSmallIntegerField(default=0)

    class Meta:
        ordering = ["position", "id"]

    def __str__(self) -> str:
        return self.title


def _lines(text: str) -> list[str]:
    return [line.strip() for line in text.splitlines() if line.strip()]


class PersonTopic(models.Model):
    """A topic a member is on: one of their research interests, the topic of some of
    their papers, or both. Derived from those (people.topics keeps it in step after
    every re-index of the member); pages, facets and the API find members by it."""

    person = models.ForeignKey(
        Person, on_delete=models.CASCADE, related_name="topic_links"
    )
    topic = models.ForeignKey(
        Topic, on_delete=models.CASCADE, related_name="person_links"
    )
    interest = models.BooleanField(help_text="One of the member's research interests.")
    papers = models.PositiveIntegerField(
        help_text="How many of the member's papers are on this topic."
    )

    class Meta:
        ordering = ["person", "topic"]
        constraints = [
            models.UniqueConstraint(
                fields=["person", "topic"], name="person_topic_unique"
            ),
            models.CheckConstraint(
                condition=models.Q(interest=True) | models.Q(papers__gt=0),
                name="person_topic_has_a_reason",
                violation_error_message="A member is on a topic by interest or papers.",
            ),
        ]
        indexes = [models.Index(fields=["topic", "person"])]

    def __str__(self) -> str:
        return f"{self.person} — {self.topic}"


class PersonSearchDocument(SearchDocument):
    person = models.OneToOneField(
        Person,
        primary_key=True,
        on_delete=models.CASCADE,
        related_name="search_document",
    )


class SimilarPerson(models.Model):
    """One of the current members most like `person`, and why (see people.similarity).

    Computed in bulk by `compute_similar`; a write that changes what a member is
    found by marks their list stale (`StaleSimilarity`) and the next read of it
    recomputes it.
    """

    person = models.ForeignKey(
        Person, on_delete=models.CASCADE, related_name="similar_people"
    )
    other = models.ForeignKey(Person, on_delete=models.CASCADE, related_name="+")
    rank = models.PositiveSmallIntegerField(help_text="1 for the most similar.")
    score = models.FloatField()
    reasons = models.JSONField(
        default=dict,
        help_text="Shared papers (a count), topics, organisations and words.",
    )

    class Meta:
        ordering = ["person", "rank"]
        constraints = [
            models.UniqueConstraint(
                fields=["person", "rank"], name="similar_person_rank_unique"
            ),
            models.UniqueConstraint(
                fields=["person", "other"], name="similar_person_other_unique"
            ),
            models.CheckConstraint(
                condition=~models.Q(person=models.F("other")),
                name="similar_person_not_self",
                violation_error_message="A member is not listed as like themselves.",
            ),
        ]
        indexes = [models.Index(fields=["other"])]

    def __str__(self) -> str:
        return f"{self.person_id} ~ {self.other_id} ({self.rank})"


class StaleSimilarity(models.Model):
    """A member whose similar people must be recomputed before they are shown."""

    person = models.OneToOneField(
        Person, primary_key=True, on_delete=models.CASCADE, related_name="+"
    )

    def __str__(self) -> str:
        return f"similar people of {self.person_id} are stale"
