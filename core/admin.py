from django.contrib import admin
from django.http import HttpRequest

from core.models import Lab, Organization, Topic


@admin.register(Topic)
class TopicAdmin(admin.ModelAdmin):
    list_display = ["name", "slug", "parent"]
    list_filter = [("parent", admin.RelatedOnlyFieldListFilter)]
    search_fields = ["name", "slug", "aliases"]
    prepopulated_fields = {"slug": ["name"]}
    autocomplete_fields = ["parent"]


@admin.register(Organization)
class OrganizationAdmin(admin.ModelAdmin):
    list_display = ["name", "short_name", "kind", "location"]
    list_filter = ["kind"]
    search_fields = ["name", "short_name", "location"]
    prepopulated_fields = {"slug": ["name"]}


@admin.register(Lab)
class LabAdmin(admin.ModelAdmin):
    """One record: a second cannot be added."""

    list_display = ["name", "kind", "url", "email"]
    fieldsets = [
        (None, {"fields": ["name", "description", "kind"]}),
        ("Contact", {"fields": ["url", "email", "address"]}),
        ("Logo", {"fields": ["logo", "logo_alt"]}),
    ]

    def has_add_permission(self, request: HttpRequest) -> bool:
        return super().has_add_permission(request) and not Lab.objects.exists()
