from django.http import HttpRequest, HttpResponse
from django.views.generic import DetailView

from core.models import Lab
from events.feeds import calendar_response
from events.filters import EventFilter
from events.models import Event
from search.views import FacetedSearchView


class EventListView(FacetedSearchView):
    filterset_class = EventFilter
    queryset = Event.objects.all()  # list rows show no related records


class EventDetailView(DetailView):
    queryset = Event.objects.for_lists().prefetch_related("topics", "publications")


def event_calendar(request: HttpRequest) -> HttpResponse:
    """Every talk and event of the lab as an iCalendar feed."""
    lab = Lab.objects.current()
    return calendar_response(
        request,
        Event.objects.order_by("date", "id"),
        name=f"{lab.name}: talks and events" if lab else "Talks and events",
        key="events",
        filename="events.ics",
    )
