from django.views.generic import DetailView

from directory.faceted import FacetedSearchView
from events.filters import EventFilter
from events.models import Event


class EventListView(FacetedSearchView):
    filterset_class = EventFilter
    queryset = Event.objects.all()  # list rows show no related records


class EventDetailView(DetailView):
    queryset = Event.objects.for_lists().prefetch_related("topics")
