from django.contrib import admin
from django.db.models import Count

from publications.models import Authorship, Publication, PublicationLink, Venue


@admin.register(Venue)
class VenueAdmin(admin.ModelAdmin):
    list_display = ["short_name", "name", "kind"]
    list_filter = ["kind"]
    search_fields = ["name", "short_name"]
    prepopulated_fields = {"slug": ["short_name"]}


class AuthorshipInline(admin.TabularInline):
    model = Authorship
    extra = 0
    ordering = ["position"]
    fields = ["position", "name", "person", "equal_contribution", "corresponding"]
    autocomplete_fields = ["person"]


class PublicationLinkInline(admin.TabularInline):
    model = PublicationLink
    extra = 0
    fields = ["position", "kind", "label", "url"]


@admin.register(Publication)
class PublicationAdmin(admin.ModelAdmin):
    list_display = [
        "title",
        "year",
        "venue",
        "status",
        "presentation",
        "selected",
        "author_count",
    ]
    list_filter = [
        "status",
        "year",
        "selected",
        "kind",
        ("venue", admin.RelatedOnlyFieldListFilter),
        "topics",
    ]
    search_fields = [
        "title",
        "alternative_title",
        "slug",
        "doi",
        "arxiv_id",
        "authorships__name",
    ]
    prepopulated_fields = {"slug": ["title"]}
    autocomplete_fields = ["venue", "topics"]
    list_select_related = ["venue"]
    inlines = [AuthorshipInline, PublicationLinkInline]
    actions = ["mark_selected", "unmark_selected"]

    def get_queryset(self, request):
        return super().get_queryset(request).annotate(author_total=Count("authorships"))

    @admin.display(description="Authors", ordering="author_total")
    def author_count(self, publication: Publication) -> int:
        return publication.author_total

    @admin.action(description="Feature as selected publications")
    def mark_selected(self, request, queryset) -> None:
        self.message_user(request, f"{queryset.update(selected=True)} featured.")

    @admin.action(description="Stop featuring as selected")
    def unmark_selected(self, request, queryset) -> None:
        self.message_user(
            request, f"{queryset.update(selected=False)} no longer featured."
        )


@admin.register(Authorship)
class AuthorshipAdmin(admin.ModelAdmin):
    list_display = ["name", "position", "publication", "person", "equal_contribution"]
    list_filter = ["equal_contribution", "corresponding"]
    search_fields = ["name", "publication__title", "person__display_name"]
    autocomplete_fields = ["publication", "person"]
    list_select_related = ["publication", "person"]
