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


def rank_by(
    queryset: QuerySet,
    raw: str,
    *then: str,
    text_only: bool = False,
    rows: QuerySet | None = None,
    key: list | None = None,
) -> QuerySet | RankedResults:
    """Order by relevance to the query; past the ranked candidates, by `then`.

    The ranking of a query does not depend on the other filters (the engine
    caches it per data version). With `text_only` (no other filter narrows
    `queryset`) every match is a result, so the index alone gives the count and
    the order. `rows` (unfiltered, with its related records) loads the records of
    a page by id, without repeating the filters. `key` names the filters, so
    that their count and the ranked ids that pass them are remembered.
    """
    query = parse(raw)
    if not query:
        return queryset.order_by(*then)
    model, engine = queryset.model, get_engine()
    ranked = engine.cached_ranked_ids(model, query, RANKED_CANDIDATES)
    if text_only:
        return RankedResults(
            queryset,
            ranked,
            then,
            exact=True,
            count=engine.cached_count(model, query),
            rows=rows,
        )
    return RankedResults(queryset, ranked, then, rows=rows, key=key)
