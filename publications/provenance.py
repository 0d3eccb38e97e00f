"""Where each field of a publication comes from (see core/provenance.py)."""

from core.provenance import (
    BIBTEX,
    OPENALEX,
    ORCID,
    ROW_ORDER,
    ROW_OWNER,
    SAVED,
    SEARCH_TEXT,
    SLUG,
    FieldSources,
    derived,
    from_lab,
    hidden,
    lab,
)
from publications import models as publications

# What a BibTeX file, an ORCID record and an OpenAlex work all give.
IMPORTED = (BIBTEX, ORCID, OPENALEX)

FIELDS: FieldSources = {
    publications.Venue: {
        **from_lab("short_name", "url"),
        "name": (lab("name"), *IMPORTED),
        "slug": (SLUG, derived("from the name an import gives")),
        "kind": (lab("kind"), derived("the kind an OpenAlex source states")),
        "updated_at": (SAVED,),
    },
    publications.Publication: {
        **from_lab("alternative_title", "working_title", "presentation"),
        **from_lab("selected", "authors_source", "summary", "key_results"),
        **from_lab("topics"),
        "slug": (SLUG, derived("from the title an import gives")),
        "title": (lab("title"), *IMPORTED),
        "kind": (lab("kind"), *IMPORTED),
        "year": (lab("year"), *IMPORTED),
        "month": (lab("month"), *IMPORTED),
        "venue": (lab("venue"), *IMPORTED),
        "venue_detail": (lab("venue_detail"), BIBTEX),
        "status": (lab("status"), BIBTEX),
        "authors_complete": (lab("authors_complete"), BIBTEX),
        "abstract": (lab("abstract"), OPENALEX),
        "doi": (lab("doi"), *IMPORTED),
        "arxiv_id": (lab("arxiv_id"), *IMPORTED),
        "openalex_id": (lab("openalex_id"), OPENALEX),
        "orcid_put_codes": (lab("orcid_put_codes"), ORCID),
        "cited_by_count": (lab("cited_by_count"), OPENALEX),
        "counts_by_year": (lab("counts_by_year"), OPENALEX),
        "citations_retrieved_at": (lab("citations_retrieved_at"), OPENALEX),
        "pages": (lab("pages"), BIBTEX),
        "volume": (lab("volume"), BIBTEX),
        "number": (lab("number"), BIBTEX),
        "bibtex": (lab("bibtex"), BIBTEX),
        "citation_key": (BIBTEX, derived("the key of the source's BibTeX")),
        "cite_key": (derived("the source's key, else first author, year, title"),),
        "source": (lab("source"), derived("the writer: lab_file, bibtex, orcid…")),
        "source_id": (lab("source_id"), *IMPORTED),
        "retrieved_at": (lab("retrieved_at"), ORCID, OPENALEX),
        "source_file": (BIBTEX,),
        "needs_review": (hidden("a note for staff in the admin"),),
        "updated_at": (SAVED,),
    },
    publications.Authorship: {
        "publication": (ROW_OWNER,),
        "position": (ROW_ORDER,),
        "name": (lab("name"), *IMPORTED),
        "family_name": (BIBTEX,),
        "person": (lab("person"), derived("a member the printed name matches")),
        **from_lab("equal_contribution", "corresponding", "position_unknown"),
    },
    publications.SourceConflict: {
        **from_lab("about", "statements"),
        "publication": (ROW_OWNER,),
        "position": (ROW_ORDER,),
    },
    publications.PublicationLink: {
        **from_lab("kind", "label", "url"),
        "publication": (ROW_OWNER,),
        "position": (ROW_ORDER,),
    },
    publications.PublicationSearchDocument: {
        **SEARCH_TEXT,
        "publication": (ROW_OWNER,),
    },
    # A large BibTeX file staff uploaded, while its preview and import run as
    # jobs: shown only to its uploader in the admin.
    publications.BibtexUpload: {
        name: (hidden("an upload in progress, for staff in the admin"),)
        for name in (
            "source",
            "text",
            "person",
            "keep_private",
            "skip_invalid",
            "confirmed",
            "report_html",
            "requested_by",
            "created_at",
        )
    },
}


def publication_sources(publication: publications.Publication) -> dict:
    """Where the paper's record, its author list and its citation counts come from."""
    citations = None
    if publication.cited_by_count is not None:
        citations = {
            "source": "openalex",
            "retrieved_at": publication.citations_retrieved_at,
        }
    return {
        "source": publication.source,
        "label": publication.get_source_display(),
        "source_id": publication.source_id,
        "retrieved_at": publication.retrieved_at,
        "authors_source": publication.authors_source,
        "citations": citations,
    }
