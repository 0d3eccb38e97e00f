from drf_spectacular.utils import extend_schema, extend_schema_view

from core.api.base import ReadWriteViewSet, detail_schema, write_schemas
from core.api.errors import ERROR_RESPONSES
from core.api.serializers import OrganizationSerializer, TopicSerializer
from core.filters import TopicFilter
from core.models import Organization, Topic


@extend_schema_view(
    list=extend_schema(responses={200: TopicSerializer(many=True), **ERROR_RESPONSES}),
    retrieve=detail_schema(TopicSerializer),
    **write_schemas(TopicSerializer, TopicSerializer),
)
class TopicViewSet(ReadWriteViewSet):
    """Research topics; searching a topic includes the topics below it."""

    queryset = Topic.objects.select_related("parent").order_by("name")
    serializer_class = TopicSerializer
    ordering_fields = ["name", "slug"]
    filterset_class = TopicFilter


@extend_schema_view(
    list=extend_schema(
        responses={200: OrganizationSerializer(many=True), **ERROR_RESPONSES}
    ),
    retrieve=detail_schema(OrganizationSerializer),
    **write_schemas(OrganizationSerializer, OrganizationSerializer),
)
class OrganizationViewSet(ReadWriteViewSet):
    """Universities, companies and labs that members belong to or came from."""

    queryset = Organization.objects.order_by("name")
    serializer_class = OrganizationSerializer
    ordering_fields = ["name", "slug"]
    filterset_fields = ["kind"]
