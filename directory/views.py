from django.db.models import Q
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, render
from django.views.generic import TemplateView

from directory.models import Topic
from events.models import Event
from people.models import Person
from publications.models import Publication


class HomeView(TemplateView):
    template_name = "home.html"

    def get_context_data(self, **kwargs) -> dict:
        context = super().get_context_data(**kwargs)
        members = sorted(
            Person.objects.current().for_cards(),
            key=lambda p: (p.role_order, p.family_name),
        )
        context.update(
            members=members,
            news=Event.objects.news().past().for_lists()[:8],
            upcoming=Event.objects.upcoming().for_lists()[:5],
            recent_talks=Event.objects.talks().past().for_lists()[:5],
            publications=Publication.objects.with_authors().newest_first()[:8],
        )
        return context


def topic_detail(request: HttpRequest, slug: str) -> HttpResponse:
    """A topic with the people, publications and events under it and its subtopics."""
    topic = get_object_or_404(
        Topic.objects.select_related("parent").prefetch_related("children"), slug=slug
    )
    topic_ids = [topic.pk, *topic.children.values_list("pk", flat=True)]
    context = {
        "topic": topic,
        "people": Person.objects.for_cards().filter(topics__in=topic_ids).distinct(),
        "publications": Publication.objects.with_authors()
        .filter(topics__in=topic_ids)
        .distinct()
        .newest_first(),
        "events": Event.objects.for_lists().filter(topics__in=topic_ids).distinct(),
    }
    return render(request, "directory/topic_detail.html", context)


def search(request: HttpRequest) -> HttpResponse:
    """One box over people, publications and events."""
    query = request.GET.get("q", "").strip()[:200]
    context = {"query": query, "people": [], "publications": [], "events": []}
    if query:
        context.update(
            people=Person.objects.for_cards()
            .filter(
                Q(display_name__icontains=query)
                | Q(native_name__icontains=query)
                | Q(headline__icontains=query)
                | Q(topics__name__icontains=query)
            )
            .distinct()[:25],
            publications=Publication.objects.with_authors()
            .filter(Q(title__icontains=query) | Q(topics__name__icontains=query))
            .distinct()
            .newest_first()[:25],
            events=Event.objects.for_lists().filter(title__icontains=query)[:25],
        )
    return render(request, "directory/search.html", context)
