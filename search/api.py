"""The API side of faceted search: lists filtered, faceted and ranked like the pages."""

from django.db.models import QuerySet
from django.http import QueryDict
from django.utils import timezone
from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework.exceptions import ValidationError
from rest_framework.request import Request
from rest_framework.response import Response

from core.api.base import ERROR_EXAMPLE, ReadWriteViewSet
from core.api.errors import ERROR_RESPONSES
from core.api.ordering import Ordering
from core.api.pagination import PAGE_PARAMETERS
from core.cache import remember
from search.engines import get_engine
from search.query import Query, parse


class FacetedViewSet(ReadWriteViewSet):
    """Lists filtered by the same FilterSet as the pages, with optional facet counts."""

    def filtered_queryset(self, params: QueryDict | None = None) -> QuerySet:
        """The records the query parameters (or `params` in their stead) select."""
        if params is None:
            params = self.request.query_params
        filterset_class = self.filterset_class
        self.reject_unknown_parameters(filterset_class)
        self.filterset = filterset_class(
            params, queryset=self.get_queryset(), request=self.request
        )
        if not self.filterset.is_valid():
            raise ValidationError(self.filterset.errors)
        queryset = self.filterset.qs
        if params.get("ordering"):
            # An explicit ordering replaces relevance order.
            base = getattr(queryset, "queryset", queryset)
            queryset = Ordering().filter_queryset(self.request, base, self)
        return queryset

    def requested_facets(self) -> list[str]:
        raw = self.request.query_params.get("facets", "")
        names = [n.strip() for n in raw.split(",") if n.strip()]
        unknown = [n for n in names if n not in self.filterset_class.facets]
        if unknown:
            allowed = ", ".join(self.filterset_class.facets)
            raise ValidationError(
                {
                    "facets": [
                        f"Unknown facet “{n}”; facets are {allowed}." for n in unknown
                    ]
                }
            )
        return names

    def list(self, request: Request, *args, **kwargs) -> Response:
        """A page of records; the same for every anonymous client asking for this
        URL in JSON, so remembered until the next write (like the facet counts) and
        built once per data version, host and day. Throttles have run by now."""
        if not self.response_is_shared(request):
            return self.build_list()
        key = [
            "api-list",
            type(self).__name__,
            request.build_absolute_uri(),
            timezone.localdate().isoformat(),
        ]
        return Response(remember(key, lambda: self.build_list().data))

    def response_is_shared(self, request: Request) -> bool:
        return (
            request.method in ("GET", "HEAD")
            and not request.user.is_authenticated
            and request.accepted_renderer.format == "json"
        )

    def build_list(self) -> Response:
        queryset = self.filtered_queryset()
        facets = self.requested_facets()
        page = self.paginate_queryset(queryset)
        corrected_from = None
        if not page and (suggestion := self.suggestion()):
            # Nothing matches: the closest known words, as the pages do, said so.
            params = self.request.query_params.copy()
            params["q"], corrected_from = suggestion.phrase, params["q"]
            page = self.paginate_queryset(self.filtered_queryset(params))
        response = self.list_response(page)
        if corrected_from is not None and isinstance(response.data, dict):
            response.data["corrected_from"] = corrected_from
            response.data["q"] = params["q"]
        if facets and isinstance(response.data, dict):
            response.data["facets"] = {
                result.name: [
                    {"value": o.value, "label": o.label, "count": o.count}
                    for o in result.options
                ]
                for result in self.filterset.facet_results(facets)
            }
        return response

    def suggestion(self) -> Query | None:
        """Known words close to a text query that found nothing, if any."""
        query = parse(self.request.query_params.get("q", ""))
        return get_engine().suggest(query) if query else None

    def list_response(self, page: list) -> Response:
        serializer = self.get_serializer(page, many=True)
        return self.get_paginated_response(serializer.data)


def list_schema(filterset_class, serializer_class, **kwargs):
    """The documented list: filters come from the FilterSet, plus paging and facets."""
    facets = list(filterset_class.facets)
    return extend_schema(
        parameters=[
            *PAGE_PARAMETERS,
            OpenApiParameter(
                "facets",
                {"type": "array", "items": {"type": "string", "enum": facets}},
                style="form",
                explode=False,
                description="Facets to count, comma-separated. Each value's count is "
                "taken with every other filter applied but not the facet's own, and "
                "adding `?<facet>=<value>` returns exactly that many results.",
            ),
        ],
        responses={200: serializer_class(many=True), **ERROR_RESPONSES},
        examples=[*kwargs.pop("examples", []), ERROR_EXAMPLE],
        **kwargs,
    )
