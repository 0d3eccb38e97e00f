from django.contrib import admin
from django.http import HttpRequest
from django.shortcuts import redirect

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
    """One record: "add" opens the one there is."""

    list_display = ["name", "kind", "url", "email"]
    fieldsets = [
        (None, {"fields": ["name", "description", "kind"]}),
        ("Contact", {"fields": ["url", "email", "address"]}),
        ("Logo", {"fields": ["logo", "logo_alt"]}),
    ]

    # Not has_add_permission: every admin page's menu would ask the database.
    def add_view(self, request: HttpRequest, form_url="", extra_context=None):
        lab = Lab.objects.first()
        if lab is not None:
            return redirect("admin:directory_lab_change", lab.pk)
        return super().add_view(request, form_url, extra_context)
