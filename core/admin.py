from django.contrib import admin

from core.models import Organization, Topic


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
