from django.core.cache import cache
from django.core.cache.utils import make_template_fragment_key
from django.db.models import prefetch_related_objects
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, render
from django.utils.functional import SimpleLazyObject
from django.views.generic import DetailView

from core.cache import data_version, remember
from core.models import Lab
from events.models import Event
from events.services import calendar_response
from people.connections import connection_between, two_members
from people.filters import PersonFilter
from people.models import Person, profile_prefetches
from people.network import coauthor_picture, group_picture
from people.provenance import profile_sources, row_sources
from people.similarity import similar_people
from people.vcard import person_vcard as build_vcard
from publications.models import Publication
from publications.services import citations_per_year, publications_per_year
from search.views import FacetedSearchView


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
    """A profile. Its sections and its JSON-LD are cached fragments (per member and
    data version): the related records are fetched only to render them."""

    queryset = Person.objects.for_cards()

    def get_object(self, queryset=None) -> Person:
        person = super().get_object(queryset)
        self.data_version = data_version()
        fragments = [
            make_template_fragment_key("profile", [person.pk, self.data_version]),
            make_template_fragment_key(
                "profile-ld", [person.pk, self.data_version, self.request.get_host()]
            ),
        ]
        if len(cache.get_many(fragments)) < len(fragments):
            prefetch_related_objects([person], *profile_prefetches())
        return person

    def get_context_data(self, **kwargs) -> dict:
        context = super().get_context_data(**kwargs)
        person = self.object
        publications = Publication.objects.with_authors().filter(
            pk__in=Publication.objects.by_person(person).values("pk")
        )
        events = SimpleLazyObject(
            lambda: list(
                Event.objects.for_lists().filter(people=person).order_by("-date", "-id")
            )
        )
        # The count and the citations in all, in one query remembered per version.
        summary = SimpleLazyObject(
            lambda: remember(
                ["profile-publication-summary", person.pk],
                publications.citation_summary,
            )
        )
        context.update(
            # A long list continues on the faceted publications page.
            publications=publications.newest_first()[:PROFILE_PUBLICATIONS],
            publication_count=SimpleLazyObject(lambda: summary["count"]),
            citations=summary,
            # The member's own choice of works, as their page lists them.
            selected_publications=SimpleLazyObject(
                lambda: list(
                    Publication.objects.by_person(person)
                    .selected()
                    .newest_first()
                    .only("slug", "title", "year")
                )
            ),
            data_version=self.data_version,
            # Read only when the cached profile is rendered again.
            sources=SimpleLazyObject(lambda: profile_sources(person)),
            publication_sources=SimpleLazyObject(
                lambda: row_sources(context["publications"])
            ),
            news=SimpleLazyObject(lambda: [e for e in events if not e.is_talk]),
            talks=SimpleLazyObject(lambda: [e for e in events if e.is_talk]),
            similar=SimpleLazyObject(lambda: similar_people(person)),
            publication_years=SimpleLazyObject(
                lambda: publications_per_year({"author": person.slug})
            ),
            citation_years=SimpleLazyObject(
                lambda: citations_per_year(
                    publications.values_list("counts_by_year", flat=True)
                )
            ),
            coauthors=SimpleLazyObject(lambda: coauthor_picture(person)),
        )
        return context


def person_connections(request: HttpRequest, slug: str, other: str) -> HttpResponse:
    """How two members are connected: papers, topics, places, co-author path."""
    person, other_person = two_members(slug, other)
    return render(
        request,
        "people/connections.html",
        {"connection": connection_between(person, other_person)},
    )


def person_network(request: HttpRequest) -> HttpResponse:
    """The members who published most and the papers they wrote together."""
    picture = remember(["group-network"], group_picture)
    return render(request, "people/person_network.html", {"picture": picture})


def person_calendar(request: HttpRequest, slug: str) -> HttpResponse:
    """A member's talks and events as an iCalendar feed."""
    person = get_object_or_404(Person, slug=slug)
    lab = Lab.objects.current()
    return calendar_response(
        request,
        Event.objects.filter(people=person).order_by("date", "id"),
        name=f"{person.display_name} · {lab.name}" if lab else person.display_name,
        key=f"person-{person.pk}-events",
        filename=f"{person.slug}.ics",
    )


def person_vcard(request: HttpRequest, slug: str) -> HttpResponse:
    """A member's contact card (.vcf), with the address only if they publish it."""
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
