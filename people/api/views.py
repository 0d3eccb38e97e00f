from django.shortcuts import get_object_or_404
from drf_spectacular.utils import (
    OpenApiExample,
    OpenApiParameter,
    extend_schema,
    extend_schema_view,
)
from rest_framework.decorators import action
from rest_framework.request import Request
from rest_framework.response import Response

from core.api.base import detail_schema, write_schemas
from core.api.errors import ERROR_RESPONSES
from people.api.serializers import (
    ConnectionSerializer,
    PersonDetailSerializer,
    PersonSerializer,
    PersonWriteSerializer,
    SimilarPersonSerializer,
)
from people.connections import connection_between, two_members
from people.filters import PersonFilter
from people.models import Person
from people.similarity import similar_people
from search.api import FacetedViewSet, list_schema


@extend_schema_view(
    list=list_schema(
        PersonFilter,
        PersonSerializer,
        examples=[
            OpenApiExample(
                "Who works on KV cache quantization",
                response_only=True,
                value={
                    "url": "https://lab.example.org/api/people/zhongzhu-zhou/",
                    "slug": "zhongzhu-zhou",
                    "display_name": "Zhongzhu Zhou",
                    "preferred_name": "Charlie",
                    "role": "senior_research_scientist",
                    "organization": {"slug": "together-ai", "name": "Together AI"},
                },
            )
        ],
        description="Members, searched and filtered like /people/. Example: "
        "`/api/people/?q=KV+cache+quantization&facets=topic,role`.",
    ),
    retrieve=detail_schema(PersonDetailSerializer),
    **write_schemas(PersonDetailSerializer, PersonWriteSerializer),
)
class PersonViewSet(FacetedViewSet):
    """Members of the group with their whole profile on the detail endpoint."""

    queryset = Person.objects.select_related("organization").prefetch_related("topics")
    serializer_class = PersonSerializer
    detail_serializer_class = PersonDetailSerializer
    write_serializer_class = PersonWriteSerializer
    filterset_class = PersonFilter
    ordering_fields = ["family_name", "display_name", "role"]

    def get_queryset(self):
        queryset = super().get_queryset()
        if self.action == "retrieve":
            queryset = queryset.with_profile()
        return queryset

    @extend_schema(
        summary="Similar researchers",
        description="The five current members most like this one, best first, "
        "each with the reasons: shared papers, topics (the most specific shared "
        "ones) and organisations, and shared words when nothing else is shared.",
        responses={200: SimilarPersonSerializer(many=True), 404: ERROR_RESPONSES[404]},
    )
    @action(
        detail=True,
        methods=["get"],
        url_path="similar",
        pagination_class=None,
        filter_backends=[],
    )
    def similar(self, request: Request, slug: str) -> Response:
        person = get_object_or_404(Person.objects.all(), slug=slug)
        serializer = SimilarPersonSerializer(
            similar_people(person), many=True, context={"request": request}
        )
        return Response(serializer.data)

    @extend_schema(
        summary="How two members are connected",
        description="Shared papers (newest first, at most 20), shared topics, "
        "organisations both were at with the time they overlapped, and the "
        "shortest co-authorship path of at most three steps.",
        parameters=[
            OpenApiParameter(
                "other", str, OpenApiParameter.PATH, description="The other slug."
            )
        ],
        responses={200: ConnectionSerializer, 404: ERROR_RESPONSES[404]},
    )
    @action(
        detail=True,
        methods=["get"],
        url_path=r"connections/(?P<other>[-a-zA-Z0-9_]+)",
        url_name="connections",
    )
    def connections(self, request: Request, slug: str, other: str) -> Response:
        person, other_person = two_members(slug, other)
        serializer = ConnectionSerializer(
            connection_between(person, other_person), context={"request": request}
        )
        return Response(serializer.data)
