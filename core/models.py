import re

from django.core.exceptions import ValidationError
from django.core.validators import MaxValueValidator, MinValueValidator
from django.db import models, transaction
from django.db.models.signals import post_save
from django.urls import reverse

from core.cache import invalidate, recall, remember
from core.images import check_image, delete_when_unused, reencode_image, stored_files
from core.paths import slug_path

MIN_YEAR = 1900
# A topic search reads this many characters and words of a query at most.
MAX_TOPIC_QUERY = 256
MAX_TOPIC_WORDS = 12
MAX_YEAR = 2100

year_validators = [MinValueValidator(MIN_YEAR), MaxValueValidator(MAX_YEAR)]


def validate_logo(file) -> None:
    """Reject anything that is not a JPEG, PNG or WebP image within the caps."""
    check_image(file, "logo")


def year_range_constraint(
    field: str, *, nullable: bool = False
) -> models.CheckConstraint:
    """A database check that keeps a year column within MIN_YEAR..MAX_YEAR."""
    condition = models.Q(**{f"{field}__gte": MIN_YEAR, f"{field}__lte": MAX_YEAR})
    if nullable:
        condition |= models.Q(**{f"{field}__isnull": True})
    return models.CheckConstraint(
        condition=condition,
        name=f"%(app_label)s_%(class)s_{field}_sane",
        violation_error_message=f"{field.replace('_', ' ').capitalize()} must lie "
        f"between {MIN_YEAR} and {MAX_YEAR}.",
    )


class DirectoryQuerySet(models.QuerySet):
    """A QuerySet whose bulk updates (admin actions) invalidate cached pages, as
    saves and deletes do through their signals."""

    def update(self, **kwargs) -> int:
        updated = super().update(**kwargs)
        if updated:
            invalidate()
        return updated


class TopicQuerySet(DirectoryQuerySet):
    def roots(self) -> "TopicQuerySet":
        return self.filter(parent__isnull=True)

    def matching(self, text: str) -> "TopicQuerySet":
        """Topics whose name or aliases contain every word of `text` (any case)."""
        words = re.findall(r"\w+", text[:MAX_TOPIC_QUERY])[:MAX_TOPIC_WORDS]
        if not words:
            return self.none()
        condition = models.Q()
        for word in words:
            condition &= models.Q(name__icontains=word) | models.Q(
                aliases__icontains=word
            )
        return self.filter(condition)

    def subtree_ids(self, slugs: list[str]) -> models.QuerySet:
        """Ids of the named topics and of every topic below them."""
        return TopicClosure.objects.filter(ancestor__slug__in=slugs).values(
            "descendant_id"
        )


class Topic(models.Model):
    """A research topic; people, publications and events point at it."""

    name = models.CharField(max_length=120, unique=True)
    slug = models.SlugField(max_length=120, unique=True)
    parent = models.ForeignKey(
        "self",
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="children",
        help_text="A broader topic; searching it includes this one.",
    )
    aliases = models.TextField(
        blank=True, help_text="Other names for the topic, one per line."
    )
    description = models.TextField(blank=True)
    # The version the API's ETag and If-Match name (core/concurrency.py).
    updated_at = models.DateTimeField(auto_now=True)

    objects = TopicQuerySet.as_manager()

    class Meta:
        ordering = ["name"]
        constraints = [
            models.CheckConstraint(
                condition=~models.Q(parent=models.F("id")),
                name="topic_not_own_parent",
                violation_error_message="A topic cannot be its own parent.",
            )
        ]

    def __str__(self) -> str:
        return self.name

    def save(self, *args, **kwargs) -> None:
        # The closure is rebuilt by the first receiver of post_save (below), so
        # that the other receivers (re-indexing what is under the topic) read it.
        with transaction.atomic():
            super().save(*args, **kwargs)

    def get_absolute_url(self) -> str:
        return slug_path("topic-detail", self.slug)

    def delete(self, *args, **kwargs):
        with transaction.atomic():
            result = super().delete(*args, **kwargs)
            TopicClosure.rebuild()
        return result

    @property
    def alias_list(self) -> list[str]:
        return [line.strip() for line in self.aliases.splitlines() if line.strip()]

    def clean(self) -> None:
        seen = {self.pk}
        node = self.parent
        while node is not None:
            if node.pk in seen:
                raise ValidationError({"parent": "Topics cannot form a cycle."})
            seen.add(node.pk)
            node = node.parent


class TopicClosure(models.Model):
    """Every (ancestor, descendant) pair of the topic tree, each topic its own ancestor.

    Lets a filter or a facet on a parent topic include its children in one join.
    """

    ancestor = models.ForeignKey(
        Topic, on_delete=models.CASCADE, related_name="descendant_links"
    )
    descendant = models.ForeignKey(
        Topic, on_delete=models.CASCADE, related_name="ancestor_links"
    )
    depth = models.PositiveSmallIntegerField()

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["ancestor", "descendant"], name="topic_closure_unique"
            )
        ]
        indexes = [models.Index(fields=["descendant", "ancestor"])]

    def __str__(self) -> str:
        return f"{self.ancestor_id} > {self.descendant_id}"

    @classmethod
    def rebuild(cls) -> None:
        """Recompute the whole table; topics number in the hundreds at most."""
        parents = dict(Topic.objects.values_list("id", "parent_id"))
        rows = []
        for topic_id in parents:
            node, depth, seen = topic_id, 0, set()
            while node is not None and node not in seen:
                seen.add(node)
                rows.append(cls(ancestor_id=node, descendant_id=topic_id, depth=depth))
                node, depth = parents.get(node), depth + 1
        cls.objects.all().delete()
        cls.objects.bulk_create(rows)


class Organization(models.Model):
    """A university, company or lab: affiliations, education and experience share it."""

    class Kind(models.TextChoices):
        UNIVERSITY = "university", "University"
        COMPANY = "company", "Company"
        LAB = "lab", "Lab or institute"
        OTHER = "other", "Other"

    name = models.CharField(max_length=200, unique=True)
    short_name = models.CharField(max_length=60, blank=True)
    slug = models.SlugField(max_length=200, unique=True)
    kind = models.CharField(max_length=20, choices=Kind.choices, default=Kind.OTHER)
    location = models.CharField(max_length=200, blank=True)
    url = models.URLField(blank=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["name"]

    def __str__(self) -> str:
        return self.name

    @property
    def label(self) -> str:
        return f"{self.name} ({self.short_name})" if self.short_name else self.name


class ExternalLink(models.Model):
    """A labelled link to another site, ordered within its owner.

    A source may name a target without giving its address ("MaxText #4759"): the
    label is then kept as text and no URL is made up for it.
    """

    label = models.CharField(max_length=120, blank=True)
    url = models.URLField(max_length=500, blank=True)
    position = models.PositiveSmallIntegerField(default=0)

    class Meta:
        abstract = True
        ordering = ["position", "id"]
        constraints = [
            models.CheckConstraint(
                condition=~models.Q(label="") | ~models.Q(url=""),
                name="%(app_label)s_%(class)s_label_or_url",
                violation_error_message="A link needs a label or a URL.",
            )
        ]

    def __str__(self) -> str:
        return self.label or self.url


class Provenance(models.Model):
    """Where a row came from, its id there, and when it was last read from there."""

    class Source(models.TextChoices):
        MANUAL = "manual", "Entered by hand"
        LAB_FILE = "lab_file", "Lab file"
        BIBTEX = "bibtex", "BibTeX"
        ORCID = "orcid", "ORCID"
        OPENALEX = "openalex", "OpenAlex"

    source = models.CharField(
        max_length=20, choices=Source.choices, default=Source.MANUAL
    )
    source_id = models.CharField(
        "id at the source",
        max_length=200,
        blank=True,
        help_text="The record's id there: an ORCID put-code, an OpenAlex work id, "
        "a BibTeX key.",
    )
    retrieved_at = models.DateTimeField(
        null=True, blank=True, help_text="When the row was last read from its source."
    )

    class Meta:
        abstract = True


# Shown read-only in the admin: importers set them, people do not.
PROVENANCE_FIELDS = ("source", "source_id", "retrieved_at")


class LabQuerySet(DirectoryQuerySet):
    def current(self) -> "Lab | None":
        """The one lab record, or None; cached per data version."""
        [lab] = remember(["lab"], lambda: [self.first()])
        return lab

    def cached(self) -> "Lab | None":
        """The lab record if the cache holds it, without asking the database."""
        found = recall(["lab"])
        return found[0] if found else None


class Lab(models.Model):
    """The group this directory is about: one record, or none.

    Nothing about it is assumed: a site without the record names no group.
    """

    class Kind(models.TextChoices):
        GROUP = "group", "A research group: the people listed are its members"
        COLLECTION = "collection", "A collection: the people listed are not one group"

    # One row at most: the primary key is always 1.
    id = models.PositiveSmallIntegerField(primary_key=True, default=1, editable=False)
    name = models.CharField(max_length=200)
    description = models.CharField(
        max_length=300, blank=True, help_text="One or two sentences, in our words."
    )
    kind = models.CharField(max_length=20, choices=Kind.choices, default=Kind.GROUP)
    address = models.TextField(blank=True, help_text="Postal address, as given.")
    url = models.URLField("web address", blank=True)
    email = models.EmailField("contact e-mail", blank=True)
    logo = models.ImageField(upload_to="lab/", blank=True, validators=[validate_logo])
    logo_alt = models.CharField(max_length=300, blank=True)

    objects = LabQuerySet.as_manager()

    class Meta:
        verbose_name = "lab"
        constraints = [
            models.CheckConstraint(
                condition=models.Q(id=1),
                name="%(app_label)s_%(class)s_one_record",
                violation_error_message="There is one lab record; edit that one.",
            )
        ]

    def __str__(self) -> str:
        return self.name

    def save(self, *args, **kwargs) -> None:
        self.id = 1
        replaced = set()
        if not getattr(self.logo, "_committed", True) or not self.logo:
            replaced = stored_files(self, ["logo"])
        if self.logo and not getattr(self.logo, "_committed", True):
            [logo] = reencode_image(self.logo, max_size=(512, 512))
            self.logo.save(logo.name, logo, save=False)
        super().save(*args, **kwargs)
        delete_when_unused(Lab, ["logo"], replaced)

    def get_absolute_url(self) -> str:
        return reverse("home")

    @property
    def has_members(self) -> bool:
        return self.kind == self.Kind.GROUP


def _rebuild_closure(sender, raw: bool = False, **kwargs) -> None:
    if not raw:  # loaddata brings the closure's own rows
        TopicClosure.rebuild()


# Connected when the models load, before any app's ready() connects its own.
post_save.connect(_rebuild_closure, sender=Topic, dispatch_uid="topic-closure")
