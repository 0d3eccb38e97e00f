import django_filters
from django.db.models import Case, CharField, QuerySet, Value, When
from django.utils import timezone

from events.models import Event
from people.models import Person
from search.facets import Facet, topic_facet
from search.filters import (
    FacetedFilterSet,
    RelatedFilter,
    SearchFilter,
    SortFilter,
    TopicFilter,
    YearsFilter,
)

WHEN = [("upcoming", "Upcoming"), ("past", "Past")]
SORTS = [("relevance", "Relevance"), ("newest", "Newest"), ("oldest", "Oldest")]


def _with_when(queryset: QuerySet) -> QuerySet:
    today = timezone.localdate()
    return queryset.annotate(
        when=Case(
            When(date__gte=today, then=Value("upcoming")),
            default=Value("past"),
            output_field=CharField(),
        )
    )


class EventFilter(FacetedFilterSet):
    q = SearchFilter()
    kind = django_filters.MultipleChoiceFilter(
        choices=Event.Kind.choices, distinct=False
    )
    year = YearsFilter(field_name="date__year")
    person = RelatedFilter(Person, "people", label="Member")
    topic = TopicFilter()
    when = django_filters.ChoiceFilter(choices=WHEN, method="filter_when")
    sort = SortFilter(SORTS)

    facets = {
        "when": Facet(
            "When", "when", choices=WHEN, annotate=_with_when, order="value_desc"
        ),
        "kind": Facet("Kind", "kind", choices=Event.Kind.choices),
        "year": Facet("Year", "date__year", order="value_desc"),
        "person": Facet(
            "Member", "people__slug", label_path="people__display_name", distinct=True
        ),
        "topic": topic_facet(),
    }

    class Meta:
        model = Event
        fields = ["q", "kind", "year", "person", "topic", "when", "sort"]

    def filter_when(self, qs: QuerySet, name: str, value: str) -> QuerySet:
        today = timezone.localdate()
        if value == "upcoming":
            return qs.filter(date__gte=today)
        if value == "past":
            return qs.filter(date__lt=today)
        return qs

    orders = {"newest": ("-date", "-pk"), "oldest": ("date", "pk")}
    default_order = ("-date", "-pk")
    relevance_then = ("-date", "-pk")
