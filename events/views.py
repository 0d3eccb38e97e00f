from django.views.generic import DetailView, ListView

from events.models import Event


class EventListView(ListView):
    paginate_by = 50
    queryset = Event.objects.for_lists().order_by("-date", "-id")

    def get_context_data(self, **kwargs) -> dict:
        return super().get_context_data(
            upcoming=Event.objects.upcoming().for_lists(), **kwargs
        )


class EventDetailView(DetailView):
    queryset = Event.objects.for_lists().prefetch_related("topics")
