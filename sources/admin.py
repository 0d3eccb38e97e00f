from django.contrib import admin, messages
from django.core.exceptions import PermissionDenied
from django.db.models import QuerySet
from django.http import HttpRequest
from django.utils.html import format_html, format_html_join
from django.utils.safestring import mark_safe

from sources import review
from sources.models import Candidate
from sources.targets import WriteError

# Values too bulky to show in full in a table cell.
_SHOWN_CHARACTERS = 300


@admin.register(Candidate)
class CandidateAdmin(admin.ModelAdmin):
    list_display = [
        "label",
        "kind",
        "target",
        "person",
        "source",
        "status",
        "created_at",
    ]
    list_filter = ["status", "kind", "target", "source"]
    search_fields = ["label", "person__display_name", "source_id"]
    list_select_related = ["person"]
    date_hierarchy = "created_at"
    actions = ["accept_selected", "reject_selected"]
    fields = [
        "label", "kind", "target", "person", "source", "source_id", "note",
        "changes", "status", "created_at", "decided_at", "decided_by",
    ]  # fmt: skip
    readonly_fields = fields

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_delete_permission(self, request: HttpRequest, obj=None) -> bool:
        # A deleted rejection would let the same proposal come back.
        return False

    @admin.display(description="What it proposes")
    def changes(self, candidate: Candidate) -> str:
        if candidate.diff:
            rows = (
                (
                    d["field"],
                    _shown(d["current"]),
                    _shown(d["proposed"]),
                    "edited by hand" if d["edited"] else "",
                )
                for d in candidate.diff
            )
            head = "<tr><th>Field</th><th>Now</th><th>Proposed</th><th></th></tr>"
            cells = "<tr><td>{}</td><td>{}</td><td>{}</td><td>{}</td></tr>"
        else:
            rows = (
                (k, _shown(v))
                for k, v in candidate.values.items()
                if v not in ("", None, [])
            )
            head = "<tr><th>Field</th><th>Value</th></tr>"
            cells = "<tr><td>{}</td><td>{}</td></tr>"
        return format_html(
            "<table>{}{}</table>", mark_safe(head), format_html_join("", cells, rows)
        )

    @admin.action(description="Accept the selected candidates", permissions=["change"])
    def accept_selected(self, request: HttpRequest, queryset: QuerySet) -> None:
        self._decide(request, queryset, review.accept, "accepted")

    @admin.action(description="Reject the selected candidates", permissions=["change"])
    def reject_selected(self, request: HttpRequest, queryset: QuerySet) -> None:
        self._decide(request, queryset, review.reject, "rejected")

    def _decide(self, request, queryset, decide, done: str) -> None:
        try:
            count = decide(list(queryset), user=request.user)
        except (WriteError, PermissionDenied) as exc:
            self.message_user(
                request, f"Nothing was {done}: {exc}", level=messages.ERROR
            )
            return
        self.message_user(request, f"{count} candidate{'s' * (count != 1)} {done}.")


def _shown(value) -> str:
    text = ", ".join(map(_shown, value)) if isinstance(value, list) else str(value)
    if isinstance(value, dict):
        text = value.get("name") or str(value)
    return text if len(text) <= _SHOWN_CHARACTERS else text[:_SHOWN_CHARACTERS] + "…"
