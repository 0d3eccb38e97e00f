from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404
from django.views.generic import DetailView

from directory.faceted import FacetedSearchView
from publications.bibtex import to_bibtex
from publications.filters import PublicationFilter
from publications.models import Publication


class PublicationListView(FacetedSearchView):
    filterset_class = PublicationFilter
    queryset = Publication.objects.with_authors()


class PublicationDetailView(DetailView):
    queryset = Publication.objects.with_authors().prefetch_related(
        "topics", "events", "experience_entries__person"
    )

    def get_context_data(self, **kwargs) -> dict:
        return super().get_context_data(bibtex=to_bibtex(self.object), **kwargs)


def publication_bibtex(request: HttpRequest, slug: str) -> HttpResponse:
    """One publication as a .bib file."""
    publication = get_object_or_404(Publication.objects.with_authors(), slug=slug)
    response = HttpResponse(
        to_bibtex(publication), content_type="application/x-bibtex; charset=utf-8"
    )
    response["Content-Disposition"] = f'inline; filename="{publication.slug}.bib"'
    return response
