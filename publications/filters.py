import django_filters
from django.db.models import F

from core.lib.identifiers import normalise_doi
from core.models import MAX_YEAR, MIN_YEAR
from people.models import Person
from publications.models import Publication, Venue
from search.facets import Facet, topic_facet
from search.filters import (
    FacetedFilterSet,
    IdentifierFilter,
    RelatedFilter,
    SearchFilter,
    SortFilter,
    TopicFilter,
    YearsFilter,
)

SORTS = [
    ("relevance", "Relevance"),
    ("newest", "Newest"),
    ("oldest", "Oldest"),
    ("title", "Title"),
    ("cited", "Most cited"),
]

# Undated works last in either direction (NULL sorts differently per database).
NEWEST = (F("year").desc(nulls_last=True), "-month", "title", "pk")


class PublicationFilter(FacetedFilterSet):
    q = SearchFilter()
    topic = TopicFilter()
    year = YearsFilter(field_name="year")
    year_from = django_filters.NumberFilter(
        field_name="year", lookup_expr="gte", min_value=MIN_YEAR, max_value=MAX_YEAR
    )
    year_to = django_filters.NumberFilter(
        field_name="year", lookup_expr="lte", min_value=MIN_YEAR, max_value=MAX_YEAR
    )
    venue = RelatedFilter(Venue, "venue", label="Venue")
    status = django_filters.MultipleChoiceFilter(
        choices=Publication.Status.choices, distinct=False
    )
    kind = django_filters.MultipleChoiceFilter(
        choices=Publication.Kind.choices, distinct=False
    )
    author = RelatedFilter(Person, "authorships__person", label="Member")
    selected = django_filters.BooleanFilter(field_name="selected")
    doi = IdentifierFilter(normalise_doi, label="DOI")
    sort = SortFilter(SORTS)

    facets = {
        "topic": topic_facet(),
        "year": Facet("Year", "year", order="value_desc"),
        "venue": Facet(
            "Venue", "venue__slug", label_path=("venue__short_name", "venue__name")
        ),
        "status": Facet("Status", "status", choices=Publication.Status.choices),
        "author": Facet(
            "Member",
            "authorships__person__slug",
            label_path="authorships__person__display_name",
            distinct=True,
        ),
    }

    class Meta:
        model = Publication
        fields = [
            "q",
            "topic",
            "year",
            "year_from",
            "year_to",
            "venue",
            "status",
            "kind",
            "author",
            "selected",
            "doi",
            "sort",
        ]

    orders = {
        "newest": NEWEST,
        "oldest": (F("year").asc(nulls_last=True), "month", "title", "pk"),
        "title": ("title", "pk"),
        # Unknown counts last on every database (PostgreSQL puts NULL first in
        # descending order, SQLite last).
        "cited": (F("cited_by_count").desc(nulls_last=True), *NEWEST),
    }
    default_order = NEWEST
    relevance_then = (F("year").desc(nulls_last=True), "title", "pk")
