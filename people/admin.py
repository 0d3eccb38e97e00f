from django.contrib import admin
from django.utils import timezone
from django.utils.html import format_html

from core.admin_mixins import VersionedAdminMixin
from people.models import (
    Award,
    ContributionLink,
    Education,
    Experience,
    ExperienceLink,
    Interest,
    OpenSourceContribution,
    Person,
    PersonLink,
    ResearchArea,
    Service,
    Skill,
    Teaching,
)


class OrderedInline(admin.StackedInline):
    extra = 0
    ordering = ["position", "id"]


class PersonLinkInline(admin.TabularInline):
    model = PersonLink
    extra = 0
    fields = ["position", "kind", "label", "url"]


class ResearchAreaInline(OrderedInline):
    model = ResearchArea


class EducationInline(OrderedInline):
    model = Education
    autocomplete_fields = ["organization"]


class ExperienceInline(OrderedInline):
    model = Experience
    autocomplete_fields = ["organization", "publication"]
    show_change_link = True


class AwardInline(admin.TabularInline):
    model = Award
    extra = 0


class ServiceInline(admin.TabularInline):
    model = Service
    extra = 0


class TeachingInline(admin.TabularInline):
    model = Teaching
    extra = 0
    autocomplete_fields = ["organization"]


class OpenSourceInline(OrderedInline):
    model = OpenSourceContribution
    autocomplete_fields = ["publication"]
    show_change_link = True


class SkillInline(admin.TabularInline):
    model = Skill
    extra = 0


class InterestInline(admin.TabularInline):
    model = Interest
    extra = 0


@admin.register(Person)
class PersonAdmin(VersionedAdminMixin, admin.ModelAdmin):
    list_display = [
        "thumbnail",
        "display_name",
        "native_name",
        "role",
        "organization",
        "status",
    ]
    list_display_links = ["thumbnail", "display_name"]
    list_filter = [
        "status",
        "role",
        ("organization", admin.RelatedOnlyFieldListFilter),
        "topics",
    ]
    search_fields = [
        "display_name",
        "given_name",
        "family_name",
        "native_name",
        "preferred_name",
        "slug",
    ]
    prepopulated_fields = {"slug": ["given_name", "family_name"]}
    autocomplete_fields = ["organization", "topics"]
    readonly_fields = ["photo_preview"]
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
        ("Contact", {"fields": ["email", "secondary_email"]}),
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

    @admin.display(description="Photo")
    def thumbnail(self, person: Person) -> str:
        if person.photo_thumbnail:
            return format_html(
                '<img src="{}" alt="" width="40" height="40">',
                person.photo_thumbnail.url,
            )
        return person.initials

    @admin.display(description="Current photo")
    def photo_preview(self, person: Person) -> str:
        if person.photo_thumbnail:
            return format_html(
                '<img src="{}" alt="" width="160" height="160">',
                person.photo_thumbnail.url,
            )
        return "No photo: pages show the initials."

    @admin.action(description="Mark selected people as alumni")
    def mark_alumni(self, request, queryset) -> None:
        updated = queryset.update(
            status=Person.Status.ALUMNI, updated_at=timezone.now()
        )
        self.message_user(request, f"{updated} marked as alumni.")

    @admin.action(description="Mark selected people as current members")
    def mark_current(self, request, queryset) -> None:
        updated = queryset.update(
            status=Person.Status.CURRENT, updated_at=timezone.now()
        )
        self.message_user(request, f"{updated} marked as current members.")


class ExperienceLinkInline(admin.TabularInline):
    model = ExperienceLink
    extra = 0


@admin.register(Experience)
class ExperienceAdmin(admin.ModelAdmin):
    list_display = [
        "role",
        "person",
        "organization",
        "kind",
        "start_date",
        "end_date",
        "is_ongoing",
    ]
    list_filter = ["kind", ("organization", admin.RelatedOnlyFieldListFilter)]
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
    model = ContributionLink
    extra = 0


@admin.register(OpenSourceContribution)
class OpenSourceContributionAdmin(admin.ModelAdmin):
    list_display = [
        "project",
        "person",
        "organization",
        "role",
        "start_year",
        "end_year",
    ]
    search_fields = ["project", "organization", "person__display_name"]
    autocomplete_fields = ["person", "publication"]
    list_select_related = ["person"]
    inlines = [ContributionLinkInline]


@admin.register(Education)
class EducationAdmin(admin.ModelAdmin):
    list_display = [
        "degree",
        "field",
        "person",
        "organization",
        "start_date",
        "end_date",
        "is_ongoing",
    ]
    list_filter = [("organization", admin.RelatedOnlyFieldListFilter)]
    search_fields = [
        "degree",
        "field",
        "advisor",
        "person__display_name",
        "organization__name",
    ]
    autocomplete_fields = ["person", "organization"]
    list_select_related = ["person", "organization"]


@admin.register(Award)
class AwardAdmin(admin.ModelAdmin):
    list_display = ["title", "year", "granting_body", "person"]
    list_filter = ["year"]
    search_fields = ["title", "granting_body", "person__display_name"]
    autocomplete_fields = ["person"]
    list_select_related = ["person"]


@admin.register(Service)
class ServiceAdmin(admin.ModelAdmin):
    list_display = ["role", "venue", "year", "kind", "person"]
    list_filter = ["kind", "year"]
    search_fields = ["role", "venue", "person__display_name"]
    autocomplete_fields = ["person"]
    list_select_related = ["person"]


@admin.register(Teaching)
class TeachingAdmin(admin.ModelAdmin):
    list_display = ["course_code", "course_title", "role", "term", "person"]
    search_fields = ["course_code", "course_title", "person__display_name"]
    autocomplete_fields = ["person", "organization"]
    list_select_related = ["person"]
