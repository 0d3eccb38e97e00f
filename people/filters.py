import django_filters
from django.db.models import QuerySet

from core.lib.identifiers import normalise_orcid
from core.models import Organization, Topic
from people.models import BY_ROLE, Person, Role
from people.topics import interested_in
from publications.models import Venue
from search.facets import Facet, topic_facet
from search.filters import (
    FacetedFilterSet,
    IdentifierFilter,
    RelatedFilter,
    SearchFilter,
    SortFilter,
    TopicFilter,
    chosen,
)

SORTS = [("relevance", "Relevance"), ("name", "Name"), ("role", "Role")]


# A member is on a topic through their research interests and their papers.
ON_TOPIC = "topic_links__topic"


class PersonFilter(FacetedFilterSet):
    q = SearchFilter()
    topic = TopicFilter(relation=ON_TOPIC)
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
        "topic": topic_facet(ON_TOPIC),
        "role": Facet("Role", "role", choices=Role.choices),
        "organization": Facet(
            "Organisation", "organization__slug", label_path="organization__name"
        ),
        "status": Facet("Status", "status", choices=Person.Status.choices),
        "venue": Facet(
            "Publishes at",
            "authorships__publication__venue__slug",
            label_path=(
                "authorships__publication__venue__short_name",
                "authorships__publication__venue__name",
            ),
            distinct=True,
        ),
    }

    class Meta:
        model = Person
        fields = [
            "q",
            "topic",
            "role",
            "organization",
            "status",
            "venue",
            "orcid",
            "sort",
        ]

    orders = {"name": ("family_name", "given_name", "pk"), "role": BY_ROLE}
    relevance_then = ("role_order", "family_name", "pk")

    def with_order_columns(self, queryset: QuerySet) -> QuerySet:
        queryset = queryset.with_role_order()
        if (subtree := self._topic_subtree()) is not None:
            # Members who list a chosen topic as an interest come before those who
            # are on it through their papers only.
            queryset = queryset.annotate(interested=interested_in(subtree))
        return queryset

    @property
    def default_order(self) -> tuple[str, ...]:
        if self._topic_subtree() is not None:
            return ("-interested", *BY_ROLE)
        return BY_ROLE

    def _topic_subtree(self) -> QuerySet | None:
        """The chosen topics and those below them (a subquery), or None."""
        data = getattr(self.form, "cleaned_data", {}) if self.is_bound else {}
        if not chosen(data.get("topic")):
            return None
        return Topic.objects.subtree_ids([t.slug for t in data["topic"]])
