from django.conf import settings
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404
from django.views.generic import DetailView

from directory.cache import data_version, remember
from directory.faceted import FacetedSearchView
from events.feeds import calendar_response
from events.models import Event
from people.filters import PersonFilter
from people.models import Person
from people.vcard import person_vcard as build_vcard
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


PROFILE_PUBLICATIONS = 50


class PersonDetailView(DetailView):
    queryset = Person.objects.with_profile()

    def get_context_data(self, **kwargs) -> dict:
        context = super().get_context_data(**kwargs)
        person = self.object
        publications = Publication.objects.with_authors().filter(
            pk__in=Publication.objects.by_person(person).values("pk")
        )
        events = list(
            Event.objects.for_lists().filter(people=person).order_by("-date", "-id")
        )
        context.update(
            # A long list continues on the faceted publications page. The list is a
            # cached fragment: the query runs only when the template renders it.
            publications=publications.newest_first()[:PROFILE_PUBLICATIONS],
            publication_count=remember(
                ["profile-publication-count", person.pk], publications.count
            ),
            data_version=data_version(),
            news=[e for e in events if not e.is_talk],
            talks=[e for e in events if e.is_talk],
        )
        return context


def person_calendar(request: HttpRequest, slug: str) -> HttpResponse:
    """A member's talks and events as an iCalendar feed."""
    person = get_object_or_404(Person, slug=slug)
    return calendar_response(
        request,
        Event.objects.filter(people=person).order_by("date", "id"),
        name=f"{person.display_name} · {settings.LAB_NAME}",
        key=f"person-{person.pk}-events",
        filename=f"{person.slug}.ics",
    )


def person_vcard(request: HttpRequest, slug: str) -> HttpResponse:
    """A member's contact card (.vcf); unlike the pages it carries the address."""
    person = get_object_or_404(
        Person.objects.select_related("organization").prefetch_related("links"),
        slug=slug,
    )
    response = HttpResponse(
        build_vcard(person, request.build_absolute_uri),
        content_type="text/vcard; charset=utf-8",
    )
    response["Content-Disposition"] = f'attachment; filename="{person.slug}.vcf"'
    return response
