from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404
from django.views.generic import DetailView, ListView

from publications.bibtex import to_bibtex
from publications.models import Publication


class PublicationListView(ListView):
    paginate_by = 25

    def get_queryset(self):
        queryset = Publication.objects.with_authors().newest_first()
        self.query = self.request.GET.get("q", "").strip()[:200]
        if self.query:
            queryset = queryset.filter(title__icontains=self.query)
        return queryset

    def get_context_data(self, **kwargs) -> dict:
        return super().get_context_data(query=self.query, **kwargs)


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
