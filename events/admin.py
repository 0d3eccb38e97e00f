from django.contrib import admin

from core.admin_mixins import (
    LinkWithoutAddressFilter,
    PartialDateField,
    PartialDatesForm,
    VersionedAdminMixin,
    VersionedModelForm,
)
from events.models import Event, EventLink


class EventLinkInline(admin.TabularInline):
    model = EventLink
    extra = 0
    fields = ["position", "kind", "label", "url"]


class EventForm(PartialDatesForm, VersionedModelForm):
    """An event dated as its source dates it: 2025, 2025-09 or 2025-09-19; an end
    is given as precisely as the start."""

    partial_dates = {"date": "date_precision", "end_date": "date_precision"}
    date = PartialDateField()
    end_date = PartialDateField(
        required=False,
        help_text="As precisely as the date: both years, months or days.",
    )

    class Meta:
        exclude = ["date_precision"]


@admin.register(Event)
class EventAdmin(VersionedAdminMixin, admin.ModelAdmin):
    form = EventForm
    list_display = ["title", "kind", "date", "date_precision", "host"]
    list_filter = [
        "kind",
        ("date", admin.DateFieldListFilter),
        LinkWithoutAddressFilter,
    ]
    search_fields = ["title", "description", "host", "location"]
    date_hierarchy = "date"
    prepopulated_fields = {"slug": ["title"]}
    autocomplete_fields = ["people", "publications", "topics"]
    inlines = [EventLinkInline]
