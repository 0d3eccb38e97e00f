from django.contrib import admin, messages
from django.core.exceptions import FieldDoesNotExist, PermissionDenied
from django.db.models import Q, QuerySet
from django.http import (
    HttpRequest,
    HttpResponse,
    HttpResponseNotAllowed,
    HttpResponseRedirect,
)
from django.shortcuts import get_object_or_404
from django.urls import path, reverse
from django.utils.dates import MONTHS
from django.utils.html import format_html, format_html_join
from django.utils.safestring import mark_safe
from django.utils.text import capfirst

from core.models import Topic
from people.models import Person, PersonLink
from publications.models import Publication, Venue
from sources import review
from sources.models import Candidate, Target
from sources.targets import WriteError

# Values too bulky to show in full in a table cell.
_SHOWN_CHARACTERS = 300
# What a proposal's keys are called where the target model has no field of the name.
_LABELS = {
    "authors": "Authors",
    "authors_complete": "Author list complete",
    "venue_kind": "Kind of venue",
    "oa_url": "Open-access copy",
    "put_code": "ORCID put-code",
    "cited_by_count": "Cited by",
    "counts_by_year": "Citations per year",
    "start": "Start",
    "end": "End",
    "topic": "Research interest",
    "name": "Keyword at the source",
    "url": "URL",
}
# Codes shown by their label, per key.
_CHOICES = {
    "venue_kind": Venue.Kind,
    "kind": {Target.PUBLICATION: Publication.Kind, Target.LINK: PersonLink.Kind},
}


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
        "label",
        "kind",
        "target",
        "person",
        "source",
        "source_id",
        "note",
        "changes",
        "status",
        "created_at",
        "decided_at",
        "decided_by",
    ]
    readonly_fields = fields

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_delete_permission(self, request: HttpRequest, obj=None) -> bool:
        # A deleted rejection would let the same proposal come back.
        return False

    def get_urls(self):
        return [
            path(
                "<int:pk>/decide/",
                self.admin_site.admin_view(self.decide_view),
                name="sources_candidate_decide",
            ),
            *super().get_urls(),
        ]

    def render_change_form(self, request, context, *args, obj=None, **kwargs):
        # Every field is read-only: the page offers the decision instead of Save.
        pending = obj is not None and obj.status == Candidate.Status.PENDING
        context["decide_url"] = ""
        if pending and review.can_accept(request.user, obj):
            context["title"] = "Review candidate"
            context["decide_url"] = reverse(
                "admin:sources_candidate_decide", args=[obj.pk]
            )
        return super().render_change_form(request, context, *args, obj=obj, **kwargs)

    @admin.display(description="What it proposes")
    def changes(self, candidate: Candidate) -> str:
        names = _Names(candidate)
        if candidate.diff:
            rows = (
                (
                    _label(candidate.target, d["field"]),
                    names.shown(d["field"], d["current"]),
                    names.shown(d["field"], d["proposed"]),
                    "edited by hand" if d["edited"] else "",
                )
                for d in candidate.diff
            )
            head = "<tr><th>Field</th><th>Now</th><th>Proposed</th><th></th></tr>"
            cells = "<tr><th>{}</th><td>{}</td><td>{}</td><td>{}</td></tr>"
        else:
            rows = (
                (_label(candidate.target, k), names.shown(k, v))
                for k, v in candidate.values.items()
                if v not in ("", None, [])
            )
            head = "<tr><th>Field</th><th>Proposed</th></tr>"
            cells = "<tr><th>{}</th><td>{}</td></tr>"
        return format_html(
            '<table class="candidate-changes">{}{}</table>',
            mark_safe(head),
            format_html_join("", cells, rows),
        )

    @admin.action(description="Accept the selected candidates", permissions=["change"])
    def accept_selected(self, request: HttpRequest, queryset: QuerySet) -> None:
        self._accept(request, list(queryset))

    @admin.action(description="Reject the selected candidates", permissions=["change"])
    def reject_selected(self, request: HttpRequest, queryset: QuerySet) -> None:
        self._decide(request, list(queryset), review.reject, "rejected")

    def decide_view(self, request: HttpRequest, pk: int) -> HttpResponse:
        """Accept or reject one candidate from its page, then open the next one."""
        if request.method != "POST":
            return HttpResponseNotAllowed(["POST"])
        candidate = get_object_or_404(Candidate, pk=pk)
        if not self.has_change_permission(request, candidate):
            raise PermissionDenied
        decided = False
        if "_accept" in request.POST:
            decided = self._accept(request, [candidate])
        elif "_reject" in request.POST:
            decided = self._decide(request, [candidate], review.reject, "rejected")
        if not decided:
            return HttpResponseRedirect(
                reverse("admin:sources_candidate_change", args=[pk])
            )
        # The next one down the list (newest first), or the top of the list.
        pending = Candidate.objects.pending().exclude(pk=pk)
        following = (
            pending.filter(
                Q(created_at__lt=candidate.created_at)
                | Q(created_at=candidate.created_at, pk__gt=pk)
            ).first()
            or pending.first()
        )
        if following is None:
            return HttpResponseRedirect(reverse("admin:sources_candidate_changelist"))
        return HttpResponseRedirect(
            reverse("admin:sources_candidate_change", args=[following.pk])
        )

    def _accept(self, request, candidates: list[Candidate]) -> bool:
        """Accept what the user may write, row by row; name the others."""
        refused = [c for c in candidates if not review.can_accept(request.user, c)]
        if refused:
            self.message_user(
                request,
                "Not accepted, you may not write them: "
                + "; ".join(f"“{c.label}”" for c in refused),
                level=messages.WARNING,
            )
        allowed = [c for c in candidates if c not in refused]
        return bool(allowed) and self._decide(
            request, allowed, review.accept, "accepted"
        )

    def _decide(self, request, candidates, decide, done: str) -> bool:
        try:
            count = decide(candidates, user=request.user)
        except (WriteError, PermissionDenied) as exc:
            self.message_user(
                request, f"Nothing was {done}: {exc}", level=messages.ERROR
            )
            return False
        self.message_user(request, f"{count} candidate{'s' * (count != 1)} {done}.")
        return True


def _label(target: str, key: str) -> str:
    model = review.MODELS.get(target) or (PersonLink if target == Target.LINK else None)
    if key not in _LABELS and model is not None:
        try:
            return capfirst(model._meta.get_field(key).verbose_name)
        except FieldDoesNotExist:
            pass
    return _LABELS.get(key, key.replace("_", " ").capitalize())


class _Names:
    """The members and topics a candidate names by id, read in two queries."""

    def __init__(self, candidate: Candidate) -> None:
        pairs = [
            *candidate.values.items(),
            *(
                (d["field"], d[side])
                for d in candidate.diff
                for side in ("current", "proposed")
            ),
        ]
        people, topics = set(), set()
        for key, value in pairs:
            if key == "authors":
                people.update(author.get("person") for author in value or [])
            elif key in ("topics", "topic"):
                topics.update(value if isinstance(value, list) else [value])
        self.target = candidate.target
        self.people = dict(
            Person.objects.filter(pk__in=people - {None}).values_list(
                "pk", "display_name"
            )
        )
        self.topics = dict(
            Topic.objects.filter(pk__in=topics - {None}).values_list("pk", "name")
        )

    def shown(self, key: str, value) -> str:
        """A value as words: names for ids, labels for codes, never raw JSON."""
        if value in ("", None, []):
            return "—"
        if key == "authors":
            return format_html(
                '<ol class="authors">{}</ol>',
                format_html_join(
                    "", "<li>{}</li>", ((self._author(a),) for a in value)
                ),
            )
        if key in ("topics", "topic"):
            ids = value if isinstance(value, list) else [value]
            return ", ".join(self.topics.get(pk, f"topic #{pk}") for pk in ids)
        if key == "counts_by_year":
            return ", ".join(f"{row['year']}: {row['cited_by_count']}" for row in value)
        if key == "end" and value == "present":
            return "Present"
        if key == "month" and value in MONTHS:
            return str(MONTHS[value])
        choices = _CHOICES.get(key)
        if isinstance(choices, dict):
            choices = choices.get(self.target)
        if choices is not None and value in choices.values:
            return choices(value).label
        if isinstance(value, bool):
            return "Yes" if value else "No"
        if isinstance(value, dict):
            return "; ".join(f"{k}: {self.shown(k, v)}" for k, v in value.items())
        if isinstance(value, list):
            return ", ".join(self.shown(key, v) for v in value)
        text = str(value)
        if len(text) > _SHOWN_CHARACTERS:
            return text[:_SHOWN_CHARACTERS] + "…"
        return text

    def _author(self, author: dict) -> str:
        name, pk = author.get("name", ""), author.get("person")
        if pk is None:
            return name
        member = self.people.get(pk, f"#{pk}")
        return f"{name} (member)" if member == name else f"{name} (member {member})"
