import secrets
from pathlib import PurePath

from django import forms
from django.contrib import admin, messages
from django.core.exceptions import PermissionDenied
from django.db.models import Case, Count, F, Max, Value, When
from django.http import HttpRequest, HttpResponse, HttpResponseRedirect
from django.template.response import TemplateResponse
from django.urls import path, reverse
from django.utils import timezone

from core.admin_mixins import (
    LinkWithoutAddressFilter,
    VersionedAdminMixin,
    VersionedRowAdminMixin,
)
from core.models import PROVENANCE_FIELDS
from jobs.services import describe, latest_job, start_job
from people.models import Person
from publications.jobs import KIND, PREVIEW_ROWS
from publications.models import (
    Authorship,
    BibtexUpload,
    Publication,
    PublicationLink,
    SourceConflict,
    Venue,
)
from publications.services import (
    BibtexImportError,
    ImportReport,
    publication_import_bibtex,
)

# Session keys of the BibTeX imports waiting for their preview to be confirmed.
_PENDING = "publications-bibtex-import-"

MAX_BIBTEX_BYTES = 20 * 1024 * 1024
# A larger file is previewed and imported by a job, not within the request.
IN_REQUEST_BYTES = 256 * 1024


@admin.register(Venue)
class VenueAdmin(admin.ModelAdmin):
    list_display = ["short_name", "name", "kind"]
    list_filter = ["kind"]
    search_fields = ["name", "short_name"]
    prepopulated_fields = {"slug": ["short_name"]}


class AuthorshipFormSet(forms.BaseInlineFormSet):
    """Save a new order of the authors, whatever order the rows are written in."""

    def save(self, commit: bool = True) -> list:
        if commit:
            self._make_way()
        return super().save(commit)

    def _make_way(self) -> None:
        # (publication, position) is unique at every moment on SQLite and
        # PostgreSQL alike, and Django writes the rows one by one: a swap would
        # collide half-way. The rows that move or go first step aside, above every
        # position in use or wanted, in one statement that collides nowhere.
        moving = [
            form.instance.pk
            for form in self.initial_forms
            if form.instance.pk is not None
            and (form in self.deleted_forms or "position" in form.changed_data)
        ]
        if not moving:
            return
        rows = self.model._default_manager.filter(**{self.fk.name: self.instance})
        wanted = [
            form.cleaned_data["position"]
            for form in self.forms
            if form not in self.deleted_forms and form.cleaned_data.get("position")
        ]
        top = max([rows.aggregate(top=Max("position"))["top"] or 0, *wanted])
        rows.filter(pk__in=moving).update(
            position=Case(
                *(When(pk=pk, then=Value(top + n)) for n, pk in enumerate(moving, 1)),
                default=F("position"),
                output_field=self.model._meta.get_field("position"),
            )
        )


class AuthorshipForm(forms.ModelForm):
    """An author's row: a member picked without a printed name is printed as the
    member's display name."""

    class Meta:
        # Short headings keep the table within the page's width
        # (a soft hyphen lets "corresponding" break in its narrow column).
        labels = {
            "equal_contribution": "Co-first",
            "corresponding": "Corres\u00adponding",
            "position_unknown": "Place unknown",
        }

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.fields["name"].required = False

    def has_changed(self) -> bool:
        # The page's script numbers a row as soon as it is added: a new row with
        # nothing but that number is still an empty row, not an author to save.
        if self.instance._state.adding and set(self.changed_data) <= {"position"}:
            return False
        return super().has_changed()

    def clean(self) -> dict:
        cleaned_data = super().clean()
        person = cleaned_data.get("person")
        if not cleaned_data.get("name"):
            if person is not None:
                cleaned_data["name"] = person.display_name
            elif "name" not in self.errors:
                self.add_error("name", "Give the name as printed, or pick a member.")
        return cleaned_data


class AuthorshipInline(admin.TabularInline):
    model = Authorship
    form = AuthorshipForm
    formset = AuthorshipFormSet
    ordering = ["position"]
    fields = [
        "position",
        "name",
        "family_name",
        "person",
        "equal_contribution",
        "corresponding",
        "position_unknown",
    ]
    autocomplete_fields = ["person"]
    # The order controls (admin-inlines.js) look for this class.
    classes = ["authors", "ordered-rows"]
    verbose_name = "author"
    verbose_name_plural = "authors"

    def get_extra(self, request, obj=None, **kwargs) -> int:
        # Empty rows to type into: without JavaScript, "Add another author" is
        # not there. An empty row left empty is not saved.
        return 3 if obj is None else 1

    def formfield_for_dbfield(self, db_field, request, **kwargs):
        field = super().formfield_for_dbfield(db_field, request, **kwargs)
        if db_field.name == "person":
            # A member is picked here, not edited: the related-object icons
            # would take a line of their own under every author.
            for action in ("add", "change", "delete", "view"):
                setattr(field.widget, f"can_{action}_related", False)
        return field


class SourceConflictInline(admin.TabularInline):
    model = SourceConflict
    extra = 0
    fields = ["position", "about", "statements"]


class PublicationLinkInline(admin.TabularInline):
    model = PublicationLink
    extra = 0
    fields = ["position", "kind", "label", "url"]


@admin.register(Publication)
class PublicationAdmin(VersionedAdminMixin, admin.ModelAdmin):
    list_display = [
        "title",
        "year",
        "venue",
        "status",
        "presentation",
        "selected",
        "author_count",
        "cited_by_count",
    ]
    list_filter = [
        "status",
        "year",
        "selected",
        "needs_review",
        "kind",
        ("venue", admin.RelatedOnlyFieldListFilter),
        "topics",
        "source",
        LinkWithoutAddressFilter,
    ]
    search_fields = [
        "title",
        "alternative_title",
        "slug",
        "doi",
        "arxiv_id",
        "=openalex_id",
        "citation_key",
        "authorships__name",
    ]
    prepopulated_fields = {"slug": ["title"]}
    autocomplete_fields = ["venue", "topics"]
    # The change form (templates/admin/publications/publication/change_form.html)
    # puts the authors straight after the first fieldset: title, authors, then
    # year and venue, as a citation reads.
    fieldsets = [
        (None, {"fields": ["title", "slug"]}),
        (
            "Year and venue",
            {
                "fields": [
                    ("year", "month"),
                    "venue",
                    "venue_detail",
                    "kind",
                    ("status", "presentation"),
                    "volume",
                    "number",
                    "pages",
                ]
            },
        ),
        (
            "The work",
            {"fields": ["summary", "key_results", "abstract", "topics", "selected"]},
        ),
        (
            "As the source gives it",
            {
                "fields": [
                    "alternative_title",
                    "working_title",
                    "authors_complete",
                    "authors_source",
                ]
            },
        ),
        ("Identifiers", {"fields": ["doi", "arxiv_id", "openalex_id"]}),
        (
            "Import",
            {
                "fields": [
                    "needs_review",
                    "citation_key",
                    "source_file",
                    "bibtex",
                    *PROVENANCE_FIELDS,
                ]
            },
        ),
        (
            "Citations",
            {
                "classes": ["collapse"],
                "fields": [
                    "cited_by_count",
                    "counts_by_year",
                    "citations_retrieved_at",
                    "orcid_put_codes",
                ],
            },
        ),
    ]
    # Counts and put-codes come from OpenAlex and ORCID; an edit would be overwritten.
    readonly_fields = [
        "cited_by_count",
        "counts_by_year",
        "citations_retrieved_at",
        "orcid_put_codes",
        *PROVENANCE_FIELDS,
    ]
    list_select_related = ["venue"]
    inlines = [AuthorshipInline, PublicationLinkInline, SourceConflictInline]
    actions = ["mark_selected", "unmark_selected", "mark_reviewed"]

    class Media:
        css = {"all": ["css/admin-inlines.css"]}
        js = ["js/admin-inlines.js"]

    def get_queryset(self, request):
        # A search on authors' names joins the authorships a second time: without
        # distinct, each author would be counted once per matching row.
        return (
            super()
            .get_queryset(request)
            .annotate(author_total=Count("authorships", distinct=True))
        )

    def get_urls(self):
        return [
            path(
                "import-bibtex/",
                self.admin_site.admin_view(self.import_bibtex_view),
                name="publications_publication_import_bibtex",
            ),
            path(
                "import-bibtex/<int:pk>/",
                self.admin_site.admin_view(self.import_bibtex_job_view),
                name="publications_publication_import_bibtex_job",
            ),
            *super().get_urls(),
        ]

    def can_import(self, request: HttpRequest) -> bool:
        # An import both creates and updates publications.
        return self.has_add_permission(request) and self.has_change_permission(request)

    def changelist_view(self, request: HttpRequest, extra_context=None):
        extra_context = {
            "can_import": self.can_import(request),
            **(extra_context or {}),
        }
        return super().changelist_view(request, extra_context)

    def import_bibtex_view(self, request: HttpRequest) -> HttpResponse:
        """Upload a .bib file, preview what it changes, then confirm the import."""
        # Imported here: the parser brings pylatexenc, which only imports need.
        from publications.bibtex.parser import decode_bytes

        if not self.can_import(request):
            raise PermissionDenied
        if request.method == "POST" and "token" in request.POST:
            return self._confirm_import(request)
        form = BibtexUploadForm()
        if request.method == "POST":
            form = BibtexUploadForm(request.POST, request.FILES)
        if form.is_bound and form.is_valid():
            upload = form.cleaned_data["file"]
            if upload.size > IN_REQUEST_BYTES:
                return self._start_upload_job(request, form.cleaned_data)
            pending = {
                "text": decode_bytes(upload.read()),
                "source": PurePath(upload.name).name,
                "person": form.cleaned_data["person"].pk
                if form.cleaned_data["person"]
                else None,
                "keep_private": form.cleaned_data["keep_private"],
            }
            # The file waits in the session, so that Confirm imports exactly what
            # the preview showed without a second upload.
            for key in [k for k in request.session.keys() if k.startswith(_PENDING)]:
                del request.session[key]  # one pending import per session
            token = secrets.token_urlsafe(16)
            request.session[_session_key(token)] = pending
            return self._preview(request, token, pending, form.cleaned_data)
        return TemplateResponse(
            request,
            "admin/publications/publication/import_bibtex.html",
            {**self._context(request, "Import BibTeX"), "form": form},
        )

    def _start_upload_job(self, request: HttpRequest, data: dict) -> HttpResponse:
        from publications.bibtex.parser import decode_bytes

        upload = BibtexUpload.objects.create(
            source=PurePath(data["file"].name).name,
            text=decode_bytes(data["file"].read()),
            person=data["person"],
            keep_private=data["keep_private"],
            skip_invalid=data["skip_invalid"],
            requested_by=request.user,
        )
        return self._run_upload(request, upload)

    def _run_upload(self, request: HttpRequest, upload: BibtexUpload) -> HttpResponse:
        message, level = describe(start_job(KIND, upload, requested_by=request.user))
        self.message_user(request, message, level)
        return HttpResponseRedirect(
            reverse(
                "admin:publications_publication_import_bibtex_job", args=[upload.pk]
            )
        )

    def import_bibtex_job_view(self, request: HttpRequest, pk: int) -> HttpResponse:
        """A large file's preview, its Confirm button and its import, as jobs."""
        upload = BibtexUpload.objects.filter(pk=pk).first()
        if not self.can_import(request) or upload is None:
            raise PermissionDenied
        if upload.requested_by_id != request.user.pk and not request.user.is_superuser:
            raise PermissionDenied
        job = latest_job(KIND, upload)
        if request.method == "POST" and not upload.confirmed and job is not None:
            if job.state == job.State.DONE:
                upload.confirmed = True
                upload.skip_invalid = request.POST.get("skip_invalid") == "1"
                upload.save(update_fields=["confirmed", "skip_invalid"])
                return self._run_upload(request, upload)
        step = "import" if upload.confirmed else "preview"
        return TemplateResponse(
            request,
            "admin/publications/publication/import_bibtex_job.html",
            {
                **self._context(request, f"Import {upload.source}: {step}"),
                "upload": upload,
                "job": job,
            },
        )

    def _context(self, request: HttpRequest, title: str) -> dict:
        return {
            **self.admin_site.each_context(request),
            "opts": self.model._meta,
            "title": title,
        }

    def _preview(
        self, request: HttpRequest, token: str, pending: dict, options: dict
    ) -> HttpResponse:
        person = Person.objects.filter(pk=pending["person"]).first()
        # Skipping invalid entries here lets the preview show everything at once;
        # whether the real import skips them is the staff member's choice.
        report = publication_import_bibtex(
            text=pending["text"],
            source=pending["source"],
            person=person,
            dry_run=True,
            skip_invalid=True,
            keep_private=pending.get("keep_private", False),
        )
        return TemplateResponse(
            request,
            "admin/publications/publication/import_bibtex_preview.html",
            {
                **self._context(request, f"Import {pending['source']}: preview"),
                "report": report,
                "token": token,
                "source": pending["source"],
                "person": person,
                "skip_invalid": options.get("skip_invalid", False),
                "rows": PREVIEW_ROWS,
                "changes": bool(report.created or report.updated),
            },
        )

    def _confirm_import(self, request: HttpRequest) -> HttpResponse:
        token = request.POST["token"]
        pending = request.session.get(_session_key(token))
        upload_url = reverse("admin:publications_publication_import_bibtex")
        if pending is None:
            self.message_user(
                request,
                "That preview has expired; please upload the file again.",
                messages.ERROR,
            )
            return HttpResponseRedirect(upload_url)
        person = Person.objects.filter(pk=pending["person"]).first()
        skip_invalid = request.POST.get("skip_invalid") == "1"
        try:
            report = publication_import_bibtex(
                text=pending["text"],
                source=pending["source"],
                person=person,
                skip_invalid=skip_invalid,
                keep_private=pending.get("keep_private", False),
            )
        except BibtexImportError as exc:
            self.message_user(
                request,
                f"Nothing was imported: {len(exc.problems)} of the entries cannot "
                "be imported. “Import the rest” skips them.",
                messages.ERROR,
            )
            return self._preview(request, token, pending, {"skip_invalid": False})
        del request.session[_session_key(token)]
        self._log_import(request, report)
        self.message_user(
            request,
            f"Imported {pending['source']}: {report.summary()}.",
            messages.SUCCESS,
        )
        return HttpResponseRedirect(
            reverse("admin:publications_publication_changelist")
        )

    def _log_import(self, request: HttpRequest, report: ImportReport) -> None:
        # The history of the first rows; one entry per record of a file of
        # thousands would double the import's writes.
        for item in report.created[:PREVIEW_ROWS]:
            self.log_addition(request, item.publication, "Imported from BibTeX.")
        for item in report.updated[:PREVIEW_ROWS]:
            self.log_change(
                request,
                item.publication,
                f"Updated from BibTeX: {', '.join(item.changes)}.",
            )

    @admin.display(description="Authors", ordering="author_total")
    def author_count(self, publication: Publication) -> int:
        return publication.author_total

    @admin.action(
        description="Feature as selected publications", permissions=["change"]
    )
    def mark_selected(self, request, queryset) -> None:
        # A bulk update bypasses auto_now: stamp it, so open change forms see it.
        updated = queryset.update(selected=True, updated_at=timezone.now())
        self.message_user(request, f"{updated} featured.")

    @admin.action(description="Stop featuring as selected", permissions=["change"])
    def unmark_selected(self, request, queryset) -> None:
        updated = queryset.update(selected=False, updated_at=timezone.now())
        self.message_user(request, f"{updated} no longer featured.")

    @admin.action(description="Mark as reviewed", permissions=["change"])
    def mark_reviewed(self, request, queryset) -> None:
        updated = queryset.update(needs_review=False, updated_at=timezone.now())
        self.message_user(request, f"{updated} marked as reviewed.")


@admin.register(Authorship)
class AuthorshipAdmin(VersionedRowAdminMixin, admin.ModelAdmin):
    list_display = ["name", "position", "publication", "person", "equal_contribution"]
    list_filter = ["equal_contribution", "corresponding"]
    search_fields = ["name", "publication__title", "person__display_name"]
    autocomplete_fields = ["publication", "person"]
    list_select_related = ["publication", "person"]


class BibtexUploadForm(forms.Form):
    file = forms.FileField(
        label="BibTeX file",
        help_text="A .bib file in UTF-8. Nothing is written before you confirm.",
        widget=forms.ClearableFileInput(attrs={"accept": ".bib,.bibtex,text/plain"}),
    )
    person = forms.ModelChoiceField(
        Person.objects.order_by("family_name", "given_name"),
        required=False,
        label="Member",
        help_text="A member who is an author of every entry (their own list): "
        "matched even by initials, and entries without them are listed.",
    )
    skip_invalid = forms.BooleanField(
        required=False,
        label="Skip invalid entries",
        help_text="Import the readable entries and list the others, instead of "
        "importing nothing when one entry is malformed.",
    )
    keep_private = forms.BooleanField(
        required=False,
        label="Keep private fields",
        help_text="Also store the fields a reference manager adds for its owner "
        "(file, annote, comment, owner, groups, timestamps…). They are never shown "
        "on the site, in its exports or in the API.",
    )

    def clean_file(self):
        upload = self.cleaned_data["file"]
        if upload.size > MAX_BIBTEX_BYTES:
            raise forms.ValidationError(
                f"The file is larger than {MAX_BIBTEX_BYTES // 1024 // 1024} MB."
            )
        return upload


def _session_key(token: str) -> str:
    return _PENDING + token
