from django.contrib import admin

from core.admin_mixins import VersionedAdminMixin
from events.models import Event, EventLink


class EventLinkInline(admin.TabularInline):
    model = EventLink
    extra = 0
    fields = ["position", "kind", "label", "url"]


@admin.register(Event)
class EventAdmin(VersionedAdminMixin, admin.ModelAdmin):
    list_display = ["title", "kind", "date", "date_precision", "host"]
    list_filter = ["kind", ("date", admin.DateFieldListFilter)]
    search_fields = ["title", "description", "host", "location"]
    date_hierarchy = "date"
    prepopulated_fields = {"slug": ["title"]}
    autocomplete_fields = ["people", "publications", "topics"]
    inlines = [EventLinkInline]
