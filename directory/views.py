import sys
from urllib.parse import urlencode

from django.db.models import Count, IntegerField, OuterRef, Subquery
from django.db.models.functions import Coalesce
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import get_object_or_404, render
from django.urls import reverse
from django.utils import timezone
from django.views.defaults import page_not_found
from django.views.defaults import server_error as site_server_error
from django.views.generic import TemplateView

from core.cache import data_version, remember
from core.lib.charts import TileData, treemap
from core.models import Topic, TopicClosure
from core.unavailable import DATABASE_ERRORS, service_unavailable
from events.filters import EventFilter
from events.models import Event
from people.filters import PersonFilter
from people.models import BY_ROLE, Person
from people.topics import on_topics
from publications.charts import publications_per_year
from publications.filters import PublicationFilter
from publications.models import Publication
from search.engines import get_engine
from search.query import parse
from search.views import no_results_advice

HOME_MEMBERS = 24
TOPIC_LIST_SIZE = 24
SEARCH_GROUP_SIZE = 5


class HomeView(TemplateView):
    template_name = "home.html"

    def get_context_data(self, **kwargs) -> dict:
        context = super().get_context_data(**kwargs)
        members = Person.objects.current().for_cards().by_role()
        context.update(
            # The lists are rendered once per data version and day (the template
            # caches them), so they stay lazy here.
            cache_key=f"{data_version()}:{timezone.localdate().isoformat()}",
            members=members[:HOME_MEMBERS],
            all_members=members,
            news=Event.objects.news().past().for_lists()[:8],
            upcoming=Event.objects.upcoming().for_lists()[:5],
            recent_talks=Event.objects.talks().past().for_lists()[:5],
            publications=Publication.objects.with_authors().newest_first()[:8],
        )
        return context


def topic_detail(request: HttpRequest, slug: str) -> HttpResponse:
    """A topic with the latest people, papers and events under it and its subtopics."""
    topic = get_object_or_404(
        Topic.objects.select_related("parent").prefetch_related("children"), slug=slug
    )
    subtree = Topic.objects.subtree_ids([topic.slug])
    # Members on it by interest or by their papers, those who list it first.
    people = on_topics(Person.objects.for_cards(), subtree)
    publications = Publication.objects.with_authors().filter(
        pk__in=Publication.objects.filter(topics__in=subtree).values("pk")
    )
    events = Event.objects.filter(
        pk__in=Event.objects.filter(topics__in=subtree).values("pk")
    )
    context = {
        "topic": topic,
        "people": people.with_role_order().order_by("-interested", *BY_ROLE)[
            :TOPIC_LIST_SIZE
        ],
        "people_count": people.count(),
        "publications": publications.newest_first()[:TOPIC_LIST_SIZE],
        "publication_count": publications.count(),
        "events": events.order_by("-date", "-pk")[:TOPIC_LIST_SIZE],
        "event_count": events.count(),
        "publication_years": publications_per_year({"topic": topic.slug}),
    }
    return render(request, "directory/topic_detail.html", context)


def _subtree_count(relation: str) -> Coalesce:
    """How many distinct records along `relation` a topic and its subtopics have."""
    counts = (
        TopicClosure.objects.filter(ancestor=OuterRef("pk"))
        .values("ancestor")
        .annotate(n=Count(f"descendant__{relation}", distinct=True))
        .values("n")
    )
    return Coalesce(Subquery(counts, output_field=IntegerField()), 0)


def topic_map() -> dict:
    """Every topic with its people and papers (subtopics included), in tree order,
    and the first two levels of the tree as treemaps sized by each."""
    topics = list(
        Topic.objects.annotate(
            people_count=_subtree_count("person_links__person"),
            publication_count=_subtree_count("publications"),
        ).order_by("name", "pk")
    )
    children: dict[int | None, list[Topic]] = {}
    for topic in topics:
        children.setdefault(topic.parent_id, []).append(topic)
    rows = []

    def walk(parent: int | None, depth: int) -> None:
        for topic in children.get(parent, []):
            rows.append((depth, topic))
            walk(topic.pk, depth + 1)

    walk(None, 0)

    def tiles(measure: str) -> list:
        def tile(topic: Topic, below: tuple = ()) -> TileData:
            value = getattr(topic, measure)
            return TileData(
                topic.slug, topic.name, value, topic.get_absolute_url(), below
            )

        return treemap(
            [
                tile(root, tuple(tile(c) for c in children.get(root.pk, [])))
                for root in children.get(None, [])
            ]
        )

    return {
        "rows": rows,
        "by_publications": tiles("publication_count"),
        "by_people": tiles("people_count"),
    }


def topic_list(request: HttpRequest) -> HttpResponse:
    """Every topic, mapped by its papers and its people."""
    return render(
        request, "directory/topic_list.html", remember(["topic-map"], topic_map)
    )


def search(request: HttpRequest) -> HttpResponse:
    """One box over topics, people, publications and events, each group linking to
    its page; a misspelt query that finds nothing is corrected, as on the lists."""
    query = parse(request.GET.get("q", ""))
    context = {
        "query": query,
        # Called by the template only when its cached rendering of the results
        # (per query and data version) is missing.
        "results": lambda: search_results(query),
        "data_version": data_version(),
    }
    return render(request, "directory/search.html", context)


def search_results(query) -> dict:
    """The groups of results for `query`, or for the closest known words when it
    finds nothing at all (`corrected_from` is then the query as typed)."""
    groups, corrected_from = search_groups(query), None
    if not any(group["count"] for group in groups):
        suggestion = get_engine().suggest(query)
        if suggestion:
            corrected_from, query = query, suggestion
            groups = search_groups(query)
    found = any(group["count"] for group in groups)
    return {
        "groups": groups,
        "query": query,
        "corrected_from": corrected_from,
        "advice": [] if found else no_results_advice(query, filtered=False),
    }


def search_groups(query) -> list[dict]:
    """The topics named like the query, and the top people, publications and events
    for it, with their counts."""
    engine = get_engine()
    topics = Topic.objects.matching(query.text).order_by("name")
    top_topics = list(topics[:SEARCH_GROUP_SIZE])
    groups = [
        {
            "label": "Topics",
            "kind": "topic",
            "count": topics.count()
            if len(top_topics) == SEARCH_GROUP_SIZE
            else len(top_topics),
            "results": top_topics,
            "url": reverse("topic-list"),
        }
    ]
    sources = [
        ("People", "people:list", PersonFilter, Person.objects.for_cards()),
        (
            "Publications",
            "publications:list",
            PublicationFilter,
            Publication.objects.with_authors(),
        ),
        ("News and events", "events:list", EventFilter, Event.objects.for_lists()),
    ]
    for label, url_name, filterset_class, queryset in sources:
        results = filterset_class({"q": query.text}, queryset=queryset).qs
        top = list(results[:SEARCH_GROUP_SIZE])
        snippets = engine.cached_snippets(
            queryset.model, [obj.pk for obj in top], query
        )
        for obj in top:
            obj.snippet = snippets.get(obj.pk, "")
        groups.append(
            {
                "label": label,
                "kind": queryset.model._meta.model_name,
                "count": results.count() if len(top) == SEARCH_GROUP_SIZE else len(top),
                "results": top,
                "url": f"{reverse(url_name)}?{urlencode({'q': query.text})}",
            }
        )
    return groups


def not_found(request: HttpRequest, exception: Exception) -> HttpResponse:
    """JSON for the API's clients, the site's page for everyone else."""
    if request.path.startswith("/api/"):
        return _api_error(404, "not_found", "Not found.")
    return page_not_found(request, exception)


def server_error(request: HttpRequest) -> HttpResponse:
    """JSON for the API's clients, the site's plain 500 page for everyone else; a
    503 when the database failed outside a view (in a middleware, say)."""
    if isinstance(sys.exc_info()[1], DATABASE_ERRORS):
        return service_unavailable(request)
    if request.path.startswith("/api/"):
        return _api_error(500, "server_error", "A server error occurred.")
    return site_server_error(request)


def _api_error(status: int, code: str, message: str) -> JsonResponse:
    body = {"error": {"status": status, "code": code, "message": message}}
    return JsonResponse(body, status=status)
