"""A record's related rows as one JSON column of the record's own query.

A list page that nests several relations (a paper's authors, topics and links)
would otherwise need one prefetch query per relation and a model instance per
related row. `json_rows` folds a relation into the parent's SELECT as a
correlated subquery that aggregates the rows into a JSON array of arrays.
"""

from django.db.models import Aggregate, JSONField, OuterRef, QuerySet, Subquery
from django.db.models.functions import JSONArray


class JSONArrayAgg(Aggregate):
    """The group's values as one JSON array (NULL for no rows)."""

    function = "JSON_GROUP_ARRAY"
    output_field = JSONField()

    def as_postgresql(self, compiler, connection, **extra_context):
        return self.as_sql(compiler, connection, function="JSONB_AGG", **extra_context)


def json_rows(queryset: QuerySet, link: str, columns: tuple[str, ...]) -> Subquery:
    """The rows of `queryset` whose `link` is the outer record, as arrays of `columns`.

    The order of the rows is unspecified (SQLite before 3.44 cannot order inside
    an aggregate): put the sort key first in `columns` and sort the result.
    """
    rows = (
        queryset.filter(**{link: OuterRef("pk")})
        .order_by()
        .values(link)
        .annotate(rows=JSONArrayAgg(JSONArray(*columns)))
        .values("rows")
    )
    return Subquery(rows, output_field=JSONField())


def sorted_rows(rows: list | None, columns: tuple[str, ...]) -> list[dict]:
    """Rows of a `json_rows` column as dicts, sorted by their first columns."""
    return [dict(zip(columns, row, strict=True)) for row in sorted(rows or ())]
