import django_filters
from django.db.models import QuerySet

from core.models import Organization
from people.models import Person, Role
from publications.models import Venue
from search.facets import Facet, topic_facet
from search.filters import (
    FacetedFilterSet,
    RelatedFilter,
    SearchFilter,
    SortFilter,
    TopicFilter,
)

SORTS = [("relevance", "Relevance"), ("name", "Name"), ("role", "Role")]


class PersonFilter(FacetedFilterSet):
    q = SearchFilter()
    topic = TopicFilter()
    role = django_filters.MultipleChoiceFilter(choices=Role.choices, distinct=False)
    organization = RelatedFilter(Organization, "organization", label="Organisation")
    status = django_filters.MultipleChoiceFilter(
        choices=Person.Status.choices, distinct=False
    )
    venue = RelatedFilter(
        Venue, "authorships__publication__venue", label="Publishes at"
    )
    sort = SortFilter(SORTS)

    facets = {
        "topic": topic_facet(),
        "role": Facet("Role", "role", choices=Role.choices),
        "organization": Facet(
            "Organisation", "organization__slug", label_path="organization__name"
        ),
        "status": Facet("Status", "status", choices=Person.Status.choices),
        "venue": Facet(
            "Publishes at",
            "authorships__publication__venue__slug",
            label_path="authorships__publication__venue__short_name",
            distinct=True,
        ),
    }

    class Meta:
        model = Person
        fields = ["q", "topic", "role", "organization", "status", "venue", "sort"]

    def order_results(self, queryset: QuerySet) -> QuerySet:
        data = getattr(self.form, "cleaned_data", {}) if self.is_bound else {}
        order = data.get("sort") or "relevance"
        queryset = queryset.with_role_order()
        if order == "name":
            return queryset.order_by("family_name", "given_name", "pk")
        if order == "relevance" and data.get("q"):
            return self.ranked(queryset, "role_order", "family_name", "pk")
        return queryset.by_role()
