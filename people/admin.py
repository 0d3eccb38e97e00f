import datetime

from django.contrib import admin
from django.db.models import F
from django.utils import timezone
from django.utils.html import format_html

from core.admin_mixins import (
    LinkWithoutAddressFilter,
    PartialDateField,
    PartialDatesForm,
    VersionedAdminMixin,
    VersionedModelForm,
    VersionedRowAdminMixin,
)
from core.models import PROVENANCE_FIELDS
from people import models
from people.services import person_set_status

# Imported data read longer ago than this is listed as stale.
STALE_AFTER = datetime.timedelta(days=180)


class DateRangeForm(PartialDatesForm):
    """Education and experience with a start and an end typed as the source gives
    them: 2019, 2019-09 or 2019-09-19."""

    partial_dates = {"start_date": "start_precision", "end_date": "end_precision"}
    start_date = PartialDateField(label="Start", required=False)
    end_date = PartialDateField(label="End", required=False)

    class Meta:
        exclude = ["start_precision", "end_precision"]


class OrderedInline(admin.StackedInline):
    extra = 0
    ordering = ["position", "id"]


class PersonLinkInline(admin.TabularInline):
    model = models.PersonLink
    extra = 0
    fields = ["position", "kind", "label", "url"]


class ResearchAreaInline(OrderedInline):
    model = models.ResearchArea


class EducationInline(OrderedInline):
    model = models.Education
    form = DateRangeForm
    autocomplete_fields = ["organization"]
    readonly_fields = PROVENANCE_FIELDS


class ExperienceInline(OrderedInline):
    model = models.Experience
    form = DateRangeForm
    autocomplete_fields = ["organization", "publication"]
    readonly_fields = PROVENANCE_FIELDS
    show_change_link = True


class AwardInline(admin.TabularInline):
    model = models.Award
    extra = 0


class ServiceInline(admin.TabularInline):
    model = models.Service
    extra = 0


class TeachingInline(admin.TabularInline):
    model = models.Teaching
    extra = 0
    autocomplete_fields = ["organization"]


class OpenSourceInline(OrderedInline):
    model = models.OpenSourceContribution
    autocomplete_fields = ["publication"]
    show_change_link = True


class SkillInline(admin.TabularInline):
    model = models.Skill
    extra = 0


class InterestInline(admin.TabularInline):
    model = models.Interest
    extra = 0


class ImportedDataFilter(admin.SimpleListFilter):
    """Members by how fresh the rows read from ORCID, OpenAlex or files are."""

    title = "imported data"
    parameter_name = "imported"

    def lookups(self, request, model_admin) -> list[tuple[str, str]]:
        days = STALE_AFTER.days
        return [("stale", f"Read over {days} days ago"), ("never", "Never read")]

    def queryset(self, request, queryset):
        if self.value() == "stale":
            cutoff = timezone.now() - STALE_AFTER
            return queryset.filter(oldest_retrieved_at__lt=cutoff)
        if self.value() == "never":
            return queryset.filter(oldest_retrieved_at__isnull=True)
        return queryset


class PersonForm(VersionedModelForm):
    """A member's record: a display name left blank is the given and family names."""

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        if "display_name" in self.fields:
            field = self.fields["display_name"]
            field.required = False
            field.help_text += " Left blank: the given and family names."

    def clean(self) -> dict:
        cleaned_data = super().clean()
        if not cleaned_data.get("display_name"):
            names = (cleaned_data.get(f) for f in ("given_name", "family_name"))
            cleaned_data["display_name"] = " ".join(n for n in names if n)
        return cleaned_data


@admin.register(models.Person)
class PersonAdmin(VersionedAdminMixin, admin.ModelAdmin):
    form = PersonForm
    list_display = [
        "thumbnail",
        "display_name",
        "native_name",
        "role",
        "organization",
        "status",
        "oldest_retrieved_at",
    ]
    list_display_links = ["thumbnail", "display_name"]
    list_filter = [
        "status",
        "role",
        ("organization", admin.RelatedOnlyFieldListFilter),
        "topics",
        ImportedDataFilter,
        LinkWithoutAddressFilter,
    ]
    search_fields = [
        "display_name",
        "given_name",
        "family_name",
        "native_name",
        "preferred_name",
        "slug",
        "=orcid",
        "=openalex_id",
    ]
    prepopulated_fields = {"slug": ["given_name", "family_name"]}
    autocomplete_fields = ["organization", "topics"]
    readonly_fields = ["photo_preview", "lab_file"]
    list_select_related = ["organization"]
    fieldsets = [
        (
            "Names",
            {
                "fields": [
                    "given_name",
                    "family_name",
                    "display_name",
                    "preferred_name",
                    "native_name",
                    "pronunciation",
                    "slug",
                ]
            },
        ),
        (
            "Position",
            {
                "fields": [
                    "status",
                    "role",
                    "position_title",
                    "headline",
                    "organization",
                    "team",
                    "location",
                    "office",
                ]
            },
        ),
        ("Contact", {"fields": ["email", "secondary_email", "publish_email"]}),
        ("Identifiers", {"fields": ["orcid", "openalex_id"]}),
        ("Provenance", {"fields": ["written_from", "lab_file"]}),
        ("Photo", {"fields": ["photo", "photo_preview", "photo_alt"]}),
        (
            "Profile",
            {"fields": ["bio", "research_summary", "topics", "quote", "quote_author"]},
        ),
    ]
    inlines = [
        PersonLinkInline,
        ResearchAreaInline,
        EducationInline,
        ExperienceInline,
        AwardInline,
        ServiceInline,
        TeachingInline,
        OpenSourceInline,
        SkillInline,
        InterestInline,
    ]
    actions = ["mark_alumni", "mark_current"]

    class Media:
        css = {"all": ["css/admin-inlines.css"]}

    def get_queryset(self, request):
        return super().get_queryset(request).with_oldest_retrieval()

    @admin.display(
        description="Oldest imported data",
        ordering=F("oldest_retrieved_at").asc(nulls_last=True),
        empty_value="never read",
    )
    def oldest_retrieved_at(self, person: models.Person):
        return person.oldest_retrieved_at

    @admin.display(description="Photo")
    def thumbnail(self, person: models.Person) -> str:
        if person.photo_thumbnail:
            return format_html(
                '<img src="{}" alt="" width="40" height="40">',
                person.photo_thumbnail.url,
            )
        return person.initials

    @admin.display(description="Current photo")
    def photo_preview(self, person: models.Person) -> str:
        if person.photo_thumbnail:
            return format_html(
                '<img src="{}" alt="" width="160" height="160">',
                person.photo_thumbnail.url,
            )
        return "No photo: pages show the initials."

    @admin.action(description="Mark selected people as alumni", permissions=["change"])
    def mark_alumni(self, request, queryset) -> None:
        updated = person_set_status(people=queryset, status=models.Person.Status.ALUMNI)
        self.message_user(request, f"{updated} marked as alumni.")

    @admin.action(description="Mark selected people as current members")
    def mark_current(self, request, queryset) -> None:
        updated = person_set_status(
            people=queryset, status=models.Person.Status.CURRENT
        )
        self.message_user(request, f"{updated} marked as current members.")


class ExperienceLinkInline(admin.TabularInline):
    model = models.ExperienceLink
    extra = 0


@admin.register(models.Experience)
class ExperienceAdmin(VersionedRowAdminMixin, admin.ModelAdmin):
    form = DateRangeForm
    list_display = [
        "role",
        "person",
        "organization",
        "kind",
        "start_date",
        "end_date",
        "is_ongoing",
        "source",
    ]
    list_filter = [
        "kind",
        ("organization", admin.RelatedOnlyFieldListFilter),
        "source",
        LinkWithoutAddressFilter,
    ]
    readonly_fields = PROVENANCE_FIELDS
    search_fields = [
        "role",
        "team",
        "notes",
        "person__display_name",
        "organization__name",
    ]
    autocomplete_fields = ["person", "organization", "publication"]
    list_select_related = ["person", "organization"]
    inlines = [ExperienceLinkInline]


class ContributionLinkInline(admin.TabularInline):
    model = models.ContributionLink
    extra = 0


@admin.register(models.OpenSourceContribution)
class OpenSourceContributionAdmin(admin.ModelAdmin):
    list_display = [
        "project",
        "person",
        "organization",
        "role",
        "start_year",
        "end_year",
    ]
    list_filter = [LinkWithoutAddressFilter]
    search_fields = ["project", "organization", "person__display_name"]
    autocomplete_fields = ["person", "publication"]
    list_select_related = ["person"]
    inlines = [ContributionLinkInline]


@admin.register(models.Education)
class EducationAdmin(VersionedRowAdminMixin, admin.ModelAdmin):
    form = DateRangeForm
    list_display = [
        "degree",
        "field",
        "person",
        "organization",
        "start_date",
        "end_date",
        "is_ongoing",
        "source",
    ]
    list_filter = [("organization", admin.RelatedOnlyFieldListFilter), "source"]
    readonly_fields = PROVENANCE_FIELDS
    search_fields = [
        "degree",
        "field",
        "advisor",
        "person__display_name",
        "organization__name",
    ]
    autocomplete_fields = ["person", "organization"]
    list_select_related = ["person", "organization"]


@admin.register(models.Award)
class AwardAdmin(admin.ModelAdmin):
    list_display = ["title", "year", "granting_body", "person"]
    list_filter = ["year"]
    search_fields = ["title", "granting_body", "person__display_name"]
    autocomplete_fields = ["person"]
    list_select_related = ["person"]


@admin.register(models.Service)
class ServiceAdmin(admin.ModelAdmin):
    list_display = ["role", "venue", "year", "kind", "person"]
    list_filter = ["kind", "year"]
    search_fields = ["role", "venue", "person__display_name"]
    autocomplete_fields = ["person"]
    list_select_related = ["person"]


@admin.register(models.Teaching)
class TeachingAdmin(admin.ModelAdmin):
    list_display = ["course_code", "course_title", "role", "term", "person"]
    search_fields = ["course_code", "course_title", "person__display_name"]
    autocomplete_fields = ["person", "organization"]
    list_select_related = ["person"]
