"""The view behind every faceted list page: filters, facets, chips, snippets, paging."""

import unicodedata
from urllib.parse import urlencode

from django.http import HttpRequest, HttpResponse, QueryDict
from django_filters.views import FilterView

from core.cache import CountedPaginator, data_version
from search import semantic
from search.engines import get_engine
from search.query import Query, parse


def no_results_advice(query: Query, *, filtered: bool) -> list[str]:
    """What might find something when nothing matched: only what applies."""
    advice = []
    if query and not semantic.enabled() and not written_in_latin(query.text):
        advice.append(
            "Search here matches the words records are written in, not their "
            "meaning, and no record has these words: try other ones, such as the "
            "English name of a topic."
        )
    elif query:
        advice.append("Check the spelling, or try fewer or other words.")
    if filtered:
        advice.append("Remove a filter to widen the search.")
    return advice


def written_in_latin(text: str) -> bool:
    """Whether every letter of `text` is a Latin one (accents included)."""
    return all(unicodedata.name(c, "").startswith("LATIN") for c in text if c.isalpha())


class FacetedSearchView(FilterView):
    """A FilterView whose FilterSet also counts facets; invalid values are ignored."""

    paginate_by = 25
    strict = False
    facet_limit = 12

    def get_filterset_kwargs(self, filterset_class) -> dict:
        # Always bound (an empty query is valid), so defaults and errors work alike.
        kwargs = super().get_filterset_kwargs(filterset_class)
        kwargs["data"] = self.request.GET
        return kwargs

    def get(self, request: HttpRequest, *args, **kwargs) -> HttpResponse:
        self.filterset = self.get_filterset(self.get_filterset_class())
        self.object_list = self.filterset.qs
        self.query = parse(self.filterset.form.cleaned_data.get("q", ""))
        self.corrected_from = None
        context = self.get_context_data(
            filterset=self.filterset, object_list=self.object_list
        )
        return self.render_to_response(context)

    def paginate_queryset(self, queryset, page_size):
        # A bad or out-of-range page number shows the nearest real page, not an error.
        paginator = CountedPaginator(
            queryset, page_size, key=self.filterset.results_key()
        )
        if self.query and paginator.count == 0:
            # Tolerate typos: when nothing matches, search for the closest known words.
            suggestion = get_engine().suggest(self.query)
            if suggestion:
                data = self.request.GET.copy()
                data["q"] = suggestion.phrase
                self.corrected_from, self.query = self.query, suggestion
                self.filterset = self.get_filterset_class()(
                    data, queryset=self.get_queryset(), request=self.request
                )
                paginator = CountedPaginator(
                    self.filterset.qs, page_size, key=self.filterset.results_key()
                )
        page = paginator.get_page(self.request.GET.get("page"))
        return paginator, page, page.object_list, page.has_other_pages()

    def get_context_data(self, **kwargs) -> dict:
        context = super().get_context_data(**kwargs)
        page = list(context["object_list"])
        if self.query:
            snippets = get_engine().cached_snippets(
                self.filterset.queryset.model, [obj.pk for obj in page], self.query
            )
            for obj in page:
                obj.snippet = snippets.get(obj.pk, "")
        facets = self.filterset.facet_results()
        params = self.request.GET
        chips = self._chips(facets, params)
        context.update(
            filterset=self.filterset,
            object_list=page,
            query=self.query,
            corrected_from=self.corrected_from,
            facets=facets,
            facets_key=self._facets_key(params),
            facet_limit=self.facet_limit,
            chips=chips,
            hidden_filters=self._hidden(params),
            problems=self._problems(),
            advice=[]
            if page
            else no_results_advice(self.query, filtered=len(chips) > bool(self.query)),
            sort_choices=self.filterset.filters["sort"].extra["choices"],
            current_sort=self.filterset.form.cleaned_data.get("sort") or "",
        )
        return context

    def _facets_key(self, params: QueryDict) -> str:
        """What the rendered facet list depends on: the data and every parameter
        but the page (its links keep the query, the filters and the sort)."""
        kept = sorted((k, v) for k in params if k != "page" for v in params.getlist(k))
        return f"{type(self).__name__}:{data_version()}:{urlencode(kept)}"

    def _chips(self, facets, params: QueryDict) -> list[dict]:
        chips = []
        if self.query:
            without_q = params.copy()
            without_q.pop("q", None)
            without_q.pop("page", None)
            chips.append(
                {"label": f"“{self.query.text}”", "url": f"?{without_q.urlencode()}"}
            )
        for facet in facets:
            for option in facet.selected:
                chips.append(
                    {"label": f"{facet.label}: {option.label}", "url": option.url}
                )
        return chips

    def _hidden(self, params: QueryDict) -> list[tuple[str, str]]:
        """Facet selections to carry through a new text query."""
        keep = set(self.filterset.facets) - {"q", "sort"}
        return [(k, v) for k in params for v in params.getlist(k) if k in keep]

    def _problems(self) -> list[str]:
        problems = []
        for name, errors in self.filterset.form.errors.items():
            label = self.filterset.filters[name].label or name
            problems.append(f"{label}: {' '.join(errors)} This filter was ignored.")
        return problems
