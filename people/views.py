from django.db.models import Prefetch
from django.views.generic import DetailView

from directory.faceted import FacetedSearchView
from events.models import Event
from people.filters import PersonFilter
from people.models import Experience, Person
from publications.models import Publication


class PersonListView(FacetedSearchView):
    """Members, faceted; without a query they come grouped by role, alumni last."""

    filterset_class = PersonFilter
    queryset = Person.objects.for_cards()

    def get_context_data(self, **kwargs) -> dict:
        context = super().get_context_data(**kwargs)
        ordered = self.filterset.form.cleaned_data.get("sort") in (None, "", "role")
        context["grouped"] = not self.query and ordered
        return context


class PersonDetailView(DetailView):
    queryset = Person.objects.select_related("organization").prefetch_related(
        "topics",
        "links",
        "research_areas",
        "education__organization",
        Prefetch(
            "experience",
            queryset=Experience.objects.select_related(
                "organization", "publication"
            ).prefetch_related("links"),
        ),
        "awards",
        "service",
        "teaching__organization",
        "open_source__links",
        "skills",
        "interests",
    )

    def get_context_data(self, **kwargs) -> dict:
        context = super().get_context_data(**kwargs)
        person = self.object
        publications = (
            Publication.objects.with_authors().by_person(person).newest_first()
        )
        events = list(
            Event.objects.for_lists().filter(people=person).order_by("-date", "-id")
        )
        context.update(
            publications=publications,
            news=[e for e in events if not e.is_talk],
            talks=[e for e in events if e.is_talk],
        )
        return context
