"""BibTeX files too large to read within a request, previewed and imported as jobs."""

from django.template.loader import render_to_string

from jobs.registry import Progress, register
from jobs.runner import JobFailed
from publications.models import BibtexUpload, Publication
from publications.services import BibtexImportError, publication_import_bibtex

KIND = "publications.import_bibtex"
# How many rows of each kind a preview lists before summing up the rest.
PREVIEW_ROWS = 300


def run_upload(upload: BibtexUpload, progress: Progress) -> str:
    """Preview the file (nothing written) or, once confirmed, import it."""
    try:
        report = publication_import_bibtex(
            text=upload.text,
            source=upload.source,
            person=upload.person,
            dry_run=not upload.confirmed,
            # A preview lists every problem; the import skips them if asked to.
            skip_invalid=upload.skip_invalid or not upload.confirmed,
            keep_private=upload.keep_private,
            progress=lambda done, total: progress(done, total, "entries read"),
        )
    except BibtexImportError as exc:
        raise JobFailed(str(exc)) from None
    if upload.confirmed:
        upload.text = ""  # imported: the file is no longer needed
        upload.report_html = ""
    else:
        upload.report_html = render_to_string(
            "admin/publications/publication/import_bibtex_report.html",
            {
                "report": report,
                "source": upload.source,
                "person": upload.person,
                "skip_invalid": upload.skip_invalid,
                "rows": PREVIEW_ROWS,
                "changes": bool(report.created or report.updated),
                "opts": Publication._meta,
            },
        )
    upload.save(update_fields=["text", "report_html"])
    return f"{upload.source}: {report.summary()}"


def register_jobs() -> None:
    register(
        KIND,
        label="Import BibTeX",
        run=run_upload,
        target_model=BibtexUpload,
        permission="publications.add_publication",
    )
