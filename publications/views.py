from django.http import HttpRequest, HttpResponse, QueryDict, StreamingHttpResponse
from django.shortcuts import get_object_or_404
from django.views.generic import DetailView

from publications.bibtex.writer import to_bibtex
from publications.charts import citations_per_year, years_from_facet
from publications.export import FORMATS, stream
from publications.filters import PublicationFilter
from publications.models import Publication
from search.views import FacetedSearchView

# The list page's export links, by file name extension.
EXPORTS = {extension: fmt for fmt, (_, extension) in FORMATS.items()}


class PublicationListView(FacetedSearchView):
    filterset_class = PublicationFilter
    queryset = Publication.objects.with_authors()

    def get_context_data(self, **kwargs) -> dict:
        context = super().get_context_data(**kwargs)
        query: QueryDict = self.request.GET.copy()
        query.pop("page", None)
        if self.corrected_from:
            # The page shows the corrected query's results: export those.
            query["q"] = self.query.phrase
        context["export_query"] = query.urlencode()
        # The year facet's own counts, so the picture and the facet agree.
        years = next(f for f in context["facets"] if f.name == "year")
        context["publication_years"] = years_from_facet(years)
        return context


class PublicationDetailView(DetailView):
    queryset = Publication.objects.with_authors().prefetch_related(
        "topics", "events", "experience_entries__person", "conflicts"
    )

    def get_context_data(self, **kwargs) -> dict:
        return super().get_context_data(
            bibtex=to_bibtex(self.object),
            citation_years=citations_per_year([self.object.counts_by_year]),
            **kwargs,
        )


def publication_bibtex(request: HttpRequest, slug: str) -> HttpResponse:
    """One publication as a .bib file."""
    publication = get_object_or_404(Publication.objects.with_authors(), slug=slug)
    response = HttpResponse(
        to_bibtex(publication), content_type="application/x-bibtex; charset=utf-8"
    )
    response["Content-Disposition"] = f'inline; filename="{publication.slug}.bib"'
    return response


def publication_export(request: HttpRequest, fmt: str) -> HttpResponse:
    """Every publication the list page finds for the same query, as a citation
    file, written as it is read."""
    fmt = EXPORTS[fmt]
    content_type, extension = FORMATS[fmt]
    filterset = PublicationFilter(
        request.GET, queryset=Publication.objects.with_authors(), request=request
    )
    response = StreamingHttpResponse(
        stream(filterset.qs, fmt), content_type=f"{content_type}; charset=utf-8"
    )
    response["Content-Disposition"] = f'attachment; filename="publications.{extension}"'
    return response
