from itertools import groupby

from django.db.models import Prefetch
from django.views.generic import DetailView, ListView

from events.models import Event
from people.models import Experience, Person, Role
from publications.models import Publication


class PersonListView(ListView):
    """Members grouped by role, current members first, then alumni."""

    queryset = Person.objects.for_cards().prefetch_related("topics")

    def get_context_data(self, **kwargs) -> dict:
        context = super().get_context_data(**kwargs)
        people = sorted(
            context["object_list"],
            key=lambda p: (
                p.status != Person.Status.CURRENT,
                p.role_order,
                p.family_name,
            ),
        )
        groups = []
        for (is_alumni, _order), members in groupby(
            people, key=lambda p: (p.status != Person.Status.CURRENT, p.role_order)
        ):
            members = list(members)
            label = "Alumni" if is_alumni else Role(members[0].role).label
            if is_alumni and groups and groups[-1]["label"] == "Alumni":
                groups[-1]["members"].extend(members)
            else:
                groups.append({"label": label, "members": members})
        context["groups"] = groups
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
