from drf_spectacular.utils import OpenApiExample, extend_schema_view

from core.api.base import detail_schema, write_schemas
from people.api.serializers import (
    PersonDetailSerializer,
    PersonSerializer,
    PersonWriteSerializer,
)
from people.filters import PersonFilter
from people.models import Person
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
