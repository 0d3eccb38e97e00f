import django_filters
from django.db.models import QuerySet

from core.identifiers import normalise_orcid
from core.models import Organization
from people.models import BY_ROLE, Person, Role
from publications.models import Venue
from search.facets import Facet, topic_facet
from search.filters import (
    FacetedFilterSet,
    IdentifierFilter,
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
    orcid = IdentifierFilter(normalise_orcid, label="ORCID iD")
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
        fields = [
            "q", "topic", "role", "organization", "status", "venue", "orcid", "sort",
        ]  # fmt: skip

    orders = {"name": ("family_name", "given_name", "pk"), "role": BY_ROLE}
    default_order = BY_ROLE
    relevance_then = ("role_order", "family_name", "pk")

    def with_order_columns(self, queryset: QuerySet) -> QuerySet:
        return queryset.with_role_order()
