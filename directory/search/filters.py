"""The `q` filter every searchable FilterSet shares."""

import django_filters
from django.db.models import QuerySet

from directory.search.engines import get_engine
from directory.search.query import MAX_QUERY_CHARS, parse
from directory.search.ranking import RANKED_CANDIDATES, RankedResults


class SearchFilter(django_filters.CharFilter):
    """Full-text search; the query is normalised so engine syntax is never passed on."""

    def __init__(self, *args, **kwargs) -> None:
        kwargs.setdefault("label", "Search")
        super().__init__(*args, **kwargs)

    def filter(self, qs: QuerySet, value: str) -> QuerySet:
        query = parse(value[:MAX_QUERY_CHARS] if value else "")
        if not query:
            return qs
        return get_engine().filter(qs, query)


def rank_by(queryset: QuerySet, raw: str, *then: str) -> QuerySet | RankedResults:
    """Order by relevance to the query; past the ranked candidates, by `then`."""
    query = parse(raw)
    if not query:
        return queryset.order_by(*then)
    ranked = get_engine().ranked_ids(queryset.model, query, RANKED_CANDIDATES)
    return RankedResults(queryset, ranked, then)
