from django.db.models import Model, QuerySet
from django.utils.http import http_date
from django_filters.rest_framework import DjangoFilterBackend
from drf_spectacular.utils import OpenApiExample, OpenApiParameter, extend_schema
from rest_framework import serializers, viewsets
from rest_framework.exceptions import ValidationError
from rest_framework.filters import OrderingFilter
from rest_framework.request import Request
from rest_framework.response import Response

from directory.api.errors import ERROR_RESPONSES
from directory.api.pagination import PAGE_PARAMETERS, Pagination

# Query parameters every list endpoint understands besides its filters.
COMMON_PARAMETERS = {"page", "page_size", "format", "facets", "ordering"}


class ReadWriteViewSet(viewsets.ModelViewSet):
    """Lookups by slug; reads are open, writes need the model permission.

    Writes validate with `write_serializer_class` and answer with the read
    representation, so a client sees what a later GET will return.
    """

    lookup_field = "slug"
    lookup_value_regex = r"[-a-zA-Z0-9_]+"
    pagination_class = Pagination
    ordering_fields: list[str] = []
    detail_serializer_class: type[serializers.Serializer] | None = None
    write_serializer_class: type[serializers.Serializer] | None = None

    def get_serializer_class(self):
        if self.action in ("create", "update", "partial_update"):
            return self.write_serializer_class or self.serializer_class
        if self.action == "retrieve":
            return self.detail_serializer_class or self.serializer_class
        return self.serializer_class

    def finalize_response(self, request, response, *args, **kwargs):
        response = super().finalize_response(request, response, *args, **kwargs)
        # The same URL answers in JSON, BibTeX or CSL depending on Accept.
        response.headers.setdefault("Vary", "Accept")
        return response

    def retrieve(self, request: Request, *args, **kwargs) -> Response:
        instance = self.get_object()
        response = Response(self.get_serializer(instance).data)
        updated = getattr(instance, "updated_at", None)
        if updated is not None:
            response["Last-Modified"] = http_date(updated.timestamp())
        return response

    def create(self, request: Request, *args, **kwargs) -> Response:
        serializer = self.get_serializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        data = self.read_representation(serializer.save())
        return Response(data, status=201, headers={"Location": data.get("url", "")})

    def update(self, request: Request, *args, **kwargs) -> Response:
        partial = kwargs.pop("partial", False)
        serializer = self.get_serializer(
            self.get_object(), data=request.data, partial=partial
        )
        serializer.is_valid(raise_exception=True)
        return Response(self.read_representation(serializer.save()))

    def list(self, request: Request, *args, **kwargs) -> Response:
        self.reject_unknown_parameters(self.filterset_for_view())
        return super().list(request, *args, **kwargs)

    def filterset_for_view(self):
        return DjangoFilterBackend().get_filterset_class(self, self.get_queryset())

    def reject_unknown_parameters(self, filterset_class) -> None:
        known = (
            set(filterset_class.base_filters if filterset_class else ())
            | COMMON_PARAMETERS
        )
        unknown = sorted(set(self.request.query_params) - known)
        if unknown:
            # A misspelt filter must not silently return everything.
            raise ValidationError(
                {name: ["Unknown query parameter."] for name in unknown}
            )

    def read_representation(self, instance: Model) -> dict:
        instance = self.get_queryset().get(pk=instance.pk)
        serializer_class = self.detail_serializer_class or self.serializer_class
        return serializer_class(instance, context=self.get_serializer_context()).data


class FacetedViewSet(ReadWriteViewSet):
    """Lists filtered by the same FilterSet as the pages, with optional facet counts."""

    def filtered_queryset(self) -> QuerySet:
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
            queryset = OrderingFilter().filter_queryset(self.request, base, self)
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
        queryset = self.filtered_queryset()
        facets = self.requested_facets()
        page = self.paginate_queryset(queryset)
        response = self.list_response(page)
        if facets and isinstance(response.data, dict):
            response.data["facets"] = {
                result.name: [
                    {"value": o.value, "label": o.label, "count": o.count}
                    for o in result.options
                ]
                for result in self.filterset.facet_results(facets)
            }
        return response

    def list_response(self, page: list) -> Response:
        serializer = self.get_serializer(page, many=True)
        return self.get_paginated_response(serializer.data)


ERROR_EXAMPLE = OpenApiExample(
    "An invalid filter value",
    value={
        "error": {
            "status": 400,
            "code": "invalid",
            "message": "The request is not valid; see `fields`.",
            "fields": {"year": ["“20x5” is not a year."]},
        }
    },
    response_only=True,
    status_codes=["400"],
)


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


def detail_schema(serializer_class, **kwargs):
    return extend_schema(
        responses={
            200: serializer_class,
            **{k: ERROR_RESPONSES[k] for k in (404, 429)},
        },
        **kwargs,
    )


def write_schemas(read_serializer, write_serializer) -> dict:
    """Documented answers of the write verbs, errors included."""
    errors = {k: v for k, v in ERROR_RESPONSES.items() if k != 405}
    return {
        "create": extend_schema(
            request=write_serializer, responses={201: read_serializer, **errors}
        ),
        "update": extend_schema(
            request=write_serializer, responses={200: read_serializer, **errors}
        ),
        "partial_update": extend_schema(
            request=write_serializer, responses={200: read_serializer, **errors}
        ),
        "destroy": extend_schema(responses={204: None, **errors}),
    }
