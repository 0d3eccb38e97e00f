from drf_spectacular.utils import extend_schema_view

from core.api.base import detail_schema, write_schemas
from events.api.serializers import EventSerializer, EventWriteSerializer
from events.filters import EventFilter
from events.models import Event
from search.api import FacetedViewSet, list_schema


@extend_schema_view(
    list=list_schema(
        EventFilter,
        EventSerializer,
        description="News, talks and events, filtered like /events/. "
        "`?when=upcoming` lists what is still to come.",
    ),
    retrieve=detail_schema(EventSerializer),
    **write_schemas(EventSerializer, EventWriteSerializer),
)
class EventViewSet(FacetedViewSet):
    queryset = Event.objects.prefetch_related(
        "people", "topics", "links", "publications"
    )
    serializer_class = EventSerializer
    write_serializer_class = EventWriteSerializer
    filterset_class = EventFilter
    ordering_fields = ["date", "title"]
