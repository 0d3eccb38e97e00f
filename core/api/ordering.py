"""`?ordering=`: the API's explicit sort, by the fields each view names."""

from django.db.models import F, QuerySet
from rest_framework.exceptions import ValidationError
from rest_framework.filters import OrderingFilter
from rest_framework.request import Request


class Ordering(OrderingFilter):
    """Comma-separated fields of the view's `ordering_fields`, `-` for descending.

    Unknown values (NULL) come last either way on every database (PostgreSQL
    sorts them first in descending order), and ties go in id order. A field the
    view does not offer is refused with 400, like every other unknown parameter:
    silently ignoring it would hand back a list in an order nobody asked for.
    """

    def get_ordering(self, request: Request, queryset: QuerySet, view) -> list[str]:
        terms = [
            term.strip()
            for term in request.query_params.get(self.ordering_param, "").split(",")
            if term.strip()
        ]
        allowed = list(view.ordering_fields)
        unknown = [term for term in terms if term.removeprefix("-") not in allowed]
        if unknown:
            choices = ", ".join(allowed) or "nothing"
            raise ValidationError(
                {
                    self.ordering_param: [
                        f"Unknown ordering “{term}”; order by {choices} "
                        "(prefix - for descending)."
                        for term in unknown
                    ]
                }
            )
        return terms

    def filter_queryset(self, request: Request, queryset: QuerySet, view) -> QuerySet:
        fields = self.get_ordering(request, queryset, view)
        if not fields:
            return queryset
        order = [
            F(name[1:]).desc(nulls_last=True)
            if name.startswith("-")
            else F(name).asc(nulls_last=True)
            for name in fields
        ]
        return queryset.order_by(*order, "pk")

    def get_schema_operation_parameters(self, view) -> list[dict]:
        fields = list(view.ordering_fields)
        if not fields:
            return []
        return [
            {
                "name": self.ordering_param,
                "in": "query",
                "required": False,
                "description": "Sort by these fields, comma-separated, in turn; `-` "
                "before a field sorts it descending. Records without a value come "
                "last either way. Replaces the default order (relevance to `q` "
                "where there is one). Any other field is refused with 400.",
                "schema": {
                    "type": "array",
                    "items": {
                        "type": "string",
                        "enum": [*fields, *(f"-{name}" for name in fields)],
                    },
                },
                "style": "form",
                "explode": False,
            }
        ]
