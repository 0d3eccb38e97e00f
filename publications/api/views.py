from django.db.models import QuerySet
from django.http import QueryDict, StreamingHttpResponse
from django.http.response import HttpResponseBase
from drf_spectacular.extensions import OpenApiSerializerExtension
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import (
    OpenApiExample,
    OpenApiParameter,
    extend_schema,
    extend_schema_serializer,
    extend_schema_view,
)
from rest_framework import serializers
from rest_framework.exceptions import ValidationError
from rest_framework.permissions import SAFE_METHODS
from rest_framework.renderers import BrowsableAPIRenderer, JSONRenderer
from rest_framework.request import Request
from rest_framework.response import Response

from core.api.base import ReadWriteViewSet, detail_schema, write_schemas
from core.api.errors import ERROR_RESPONSES
from core.api.renderers import BibTeXRenderer, CSLJSONRenderer
from publications.api.serializers import (
    PublicationSerializer,
    PublicationWriteSerializer,
    VenueSerializer,
)
from publications.bibtex.writer import to_bibtex
from publications.export import stream, to_csl
from publications.filters import PublicationFilter
from publications.models import Publication, Venue
from search.api import FacetedViewSet, list_schema

FORMAT_PARAMETER = OpenApiParameter(
    "format",
    str,
    enum=["json", "bibtex", "csl"],
    description="`bibtex` (or `Accept: application/x-bibtex`) for BibTeX; `csl` for "
    "CSL-JSON. A list in either holds every match (no `page`), streamed, each work "
    "under its `citation_key`.",
)


CSL_ITEMS = {
    "type": "array",
    "items": {
        "type": "object",
        "description": "A CSL-JSON item; its other fields are those of CSL.",
        "required": ["id", "type", "title"],
        "properties": {
            "id": {"type": "string"},
            "type": {"type": "string"},
            "title": {"type": "string"},
        },
    },
}


@extend_schema_serializer(many=False)
class CSLItemsSerializer(serializers.Serializer):
    """Stands for a CSL-JSON array in the schema, which is never paginated."""


class CSLItemsExtension(OpenApiSerializerExtension):
    target_class = CSLItemsSerializer

    def map_serializer(self, auto_schema, direction) -> dict:
        return CSL_ITEMS


CITATION_RESPONSES = {
    (200, BibTeXRenderer.media_type): OpenApiTypes.STR,
    (200, CSLJSONRenderer.media_type): CSLItemsSerializer,
}


def _csl(publications) -> list[dict]:
    return [to_csl(p) for p in publications]


# Over the decorator below: BibTeX is text, and CSL-JSON an array even for a page.
@extend_schema_view(
    list=extend_schema(
        responses={
            (200, JSONRenderer.media_type): PublicationSerializer(many=True),
            **CITATION_RESPONSES,
            **ERROR_RESPONSES,
        }
    ),
    retrieve=extend_schema(
        responses={
            (200, JSONRenderer.media_type): PublicationSerializer,
            **CITATION_RESPONSES,
            **{k: ERROR_RESPONSES[k] for k in (404, 429)},
        }
    ),
)
@extend_schema_view(
    list=list_schema(
        PublicationFilter,
        PublicationSerializer,
        description="Publications, searched and filtered like /publications/. "
        "`?author=jingwei-zuo&format=bibtex` gives a member's BibTeX.",
    ),
    retrieve=detail_schema(
        PublicationSerializer,
        parameters=[FORMAT_PARAMETER],
        examples=[
            OpenApiExample(
                "A paper with a member third of eight authors",
                response_only=True,
                value={
                    "url": "https://lab.example.org/api/publications/duoattention/",
                    "slug": "duoattention",
                    "title": "DuoAttention: Efficient Long-Context LLM Inference with "
                    "Retrieval and Streaming Heads",
                    "year": 2025,
                    "venue": {"slug": "iclr", "short_name": "ICLR"},
                    "authors": [
                        {
                            "position": 1,
                            "name": "Guangxuan Xiao",
                            "person": None,
                            "equal_contribution": False,
                            "corresponding": False,
                        },
                        {
                            "position": 3,
                            "name": "Jingwei Zuo",
                            "person": "https://lab.example.org/api/people/jingwei-zuo/",
                            "equal_contribution": False,
                            "corresponding": False,
                        },
                    ],
                },
            )
        ],
    ),
    **write_schemas(PublicationSerializer, PublicationWriteSerializer),
)
class PublicationViewSet(FacetedViewSet):
    """Publications with their authors in print order; members are linked."""

    queryset = PublicationSerializer.queryset()
    serializer_class = PublicationSerializer
    write_serializer_class = PublicationWriteSerializer
    filterset_class = PublicationFilter
    ordering_fields = ["year", "title", "cited_by_count"]
    renderer_classes = [
        JSONRenderer,
        BrowsableAPIRenderer,
        BibTeXRenderer,
        CSLJSONRenderer,
    ]

    def get_queryset(self) -> QuerySet:
        if self.citation_format() and self.request.method in SAFE_METHODS:
            # The citation writers read the model's relations; a write answers
            # with the JSON representation whatever the format asked for.
            return Publication.objects.with_authors()
        return super().get_queryset()

    def citation_format(self) -> str | None:
        renderer = getattr(self.request, "accepted_renderer", None)
        fmt = getattr(renderer, "format", None)
        return fmt if fmt in ("bibtex", "csl") else None

    @extend_schema(parameters=[FORMAT_PARAMETER])
    def list(self, request: Request, *args, **kwargs) -> HttpResponseBase:
        fmt = self.citation_format()
        if fmt is None or request.method not in SAFE_METHODS:
            return super().list(request, *args, **kwargs)
        # Every match, not a page: checked (a wrong filter answers 400 in JSON)
        # before the first byte, then written as it is read.
        queryset = self.filtered_queryset(self.export_parameters())
        media_type = request.accepted_renderer.media_type
        return StreamingHttpResponse(
            stream(queryset, fmt), content_type=f"{media_type}; charset=utf-8"
        )

    def export_parameters(self) -> QueryDict:
        """The query without paging, which a citation list does not take."""
        params = self.request.query_params.copy()
        if "page" in params:
            raise ValidationError(
                {"page": ["A list in BibTeX or CSL-JSON holds every match: no pages."]}
            )
        params.pop("page_size", None)
        return params

    def retrieve(self, request: Request, *args, **kwargs) -> Response:
        fmt = self.citation_format()
        if fmt == "bibtex":
            return Response(to_bibtex(self.get_object()))
        if fmt == "csl":
            return Response(_csl([self.get_object()]))
        return super().retrieve(request, *args, **kwargs)


@extend_schema_view(
    list=extend_schema(responses={200: VenueSerializer(many=True), **ERROR_RESPONSES}),
    retrieve=detail_schema(VenueSerializer),
    **write_schemas(VenueSerializer, VenueSerializer),
)
class VenueViewSet(ReadWriteViewSet):
    """Conferences, journals, workshops and preprint servers."""

    queryset = Venue.objects.order_by("short_name", "name")
    serializer_class = VenueSerializer
    filterset_fields = ["kind"]
    ordering_fields = ["name", "short_name"]
