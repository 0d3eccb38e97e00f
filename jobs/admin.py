from django.contrib import admin, messages
from django.core.exceptions import PermissionDenied, ValidationError
from django.http import Http404, HttpRequest, HttpResponse, HttpResponseNotAllowed
from django.shortcuts import redirect
from django.urls import path, reverse
from django.utils.html import format_html

from jobs.models import Job
from jobs.registry import JobKind, get_kind, kinds
from jobs.services import describe, reap_jobs, start_job


@admin.register(Job)
class JobAdmin(admin.ModelAdmin):
    list_display = [
        "kind_label",
        "target_label",
        "state",
        "progress",
        "requested_by",
        "created_at",
        "finished_at",
    ]
    list_filter = ["state", "kind"]
    search_fields = ["target_label", "summary", "error"]
    list_select_related = ["requested_by"]
    fields = [
        "kind",
        "target_link",
        "state",
        "message",
        "summary",
        "error",
        "requested_by",
        "ran_in_foreground",
        "created_at",
        "queued_at",
        "started_at",
        "heartbeat_at",
        "finished_at",
    ]
    readonly_fields = fields

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj=None) -> bool:
        return False

    def has_view_permission(self, request: HttpRequest, obj=None) -> bool:
        # Whoever started a job may follow it, even without the right to see all.
        own = obj is not None and obj.requested_by_id == request.user.pk
        return own or super().has_view_permission(request, obj)

    @admin.display(description="Job", ordering="kind")
    def kind_label(self, job: Job) -> str:
        kind = kinds().get(job.kind)
        return kind.label if kind else job.kind

    @admin.display(description="Worked on")
    def target_link(self, job: Job) -> str:
        kind = kinds().get(job.kind)
        if not job.target or kind is None or kind.target_model is None:
            return job.target_label or "—"
        meta = kind.target_model._meta
        url = reverse(
            f"admin:{meta.app_label}_{meta.model_name}_change", args=[job.target]
        )
        return format_html('<a href="{}">{}</a>', url, job.target_label)

    @admin.display(description="Progress")
    def progress(self, job: Job) -> str:
        if not job.total:
            return "—"
        return format_html(
            '<progress max="{}" value="{}">{} %</progress> {} of {}',
            job.total,
            job.done,
            job.percent,
            job.done,
            job.total,
        )

    def get_urls(self) -> list:
        start = path(
            "start/<str:kind>/",
            self.admin_site.admin_view(self.start_view),
            name="jobs_job_start",
        )
        return [start, *super().get_urls()]

    def changelist_view(self, request: HttpRequest, extra_context=None):
        reap_jobs()  # a job whose process ended is not shown as running
        startable = [
            kind
            for kind in kinds().values()
            if kind.target_model is None and kind.allowed(request.user)
        ]
        return super().changelist_view(
            request, {**(extra_context or {}), "startable_kinds": startable}
        )

    def change_view(
        self, request: HttpRequest, object_id, form_url="", extra_context=None
    ):
        reap_jobs()
        return super().change_view(request, object_id, form_url, extra_context)

    def start_view(self, request: HttpRequest, kind: str) -> HttpResponse:
        """Start a kind of job on the posted target and show its page."""
        if request.method != "POST":
            return HttpResponseNotAllowed(["POST"])
        try:
            job_kind = get_kind(kind)
        except LookupError:
            raise Http404("No such kind of job.") from None
        if not job_kind.allowed(request.user):
            raise PermissionDenied
        target = _posted_target(job_kind, request.POST.get("target", ""))
        if target is not None and not job_kind.applicable(target):
            self.message_user(
                request,
                f"{job_kind.label} does not apply to {target}.",
                messages.ERROR,
            )
            meta = target._meta
            return redirect(
                f"admin:{meta.app_label}_{meta.model_name}_change", target.pk
            )
        started = start_job(job_kind.name, target, requested_by=request.user)
        self.message_user(request, *describe(started))
        return redirect(started.job.get_absolute_url())


def _posted_target(kind: JobKind, key: str):
    if kind.target_model is None:
        return None
    try:
        target = kind.target_model._default_manager.filter(pk=key).first()
    except (ValueError, ValidationError):
        target = None
    if target is None:
        raise Http404("No such record.")
    return target
