from drf_spectacular.utils import OpenApiParameter
from rest_framework.exceptions import ValidationError
from rest_framework.pagination import PageNumberPagination

from core.cache import CountedPaginator

MAX_PAGE_SIZE = 200

PAGE_PARAMETERS = [
    OpenApiParameter(
        "page_size",
        {"type": "integer", "minimum": 1, "maximum": MAX_PAGE_SIZE},
        description=f"Results per page (default 25, at most {MAX_PAGE_SIZE}).",
    ),
]


class Pagination(PageNumberPagination):
    page_size = 25
    page_size_query_param = "page_size"
    max_page_size = MAX_PAGE_SIZE

    def paginate_queryset(self, queryset, request, view=None) -> list | None:
        # A faceted list's count is remembered, like its facets.
        filterset = getattr(view, "filterset", None)
        self.count_key = (
            filterset.results_key() if hasattr(filterset, "results_key") else None
        )
        return super().paginate_queryset(queryset, request, view)

    def django_paginator_class(self, object_list, per_page) -> CountedPaginator:
        return CountedPaginator(object_list, per_page, key=self.count_key)

    def get_page_size(self, request) -> int:
        raw = request.query_params.get(self.page_size_query_param)
        if raw is None:
            return self.page_size
        try:
            size = int(raw)
        except ValueError:
            raise ValidationError(
                {"page_size": ["A whole number is required."]}
            ) from None
        if size < 1:
            raise ValidationError({"page_size": ["Must be at least 1."]})
        return min(size, self.max_page_size)

    def get_paginated_response_schema(self, schema: dict) -> dict:
        response = super().get_paginated_response_schema(schema)
        response["properties"]["corrected_from"] = {
            "type": "string",
            "description": "Present when the text query `q` found nothing and the "
            "results are those of the closest known words, given in `q`: the query "
            "as it was sent.",
            "example": "quantizaton",
        }
        response["properties"]["q"] = {
            "type": "string",
            "description": "With `corrected_from`: the query the results are for.",
            "example": "quantization",
        }
        response["properties"]["facets"] = {
            "type": "object",
            "description": "Present when `facets` is requested.",
            "example": {
                "role": [{"value": "phd_student", "label": "PhD student", "count": 2}]
            },
            "additionalProperties": {
                "type": "array",
                "items": {
                    "type": "object",
                    "properties": {
                        "value": {"type": "string"},
                        "label": {"type": "string"},
                        "count": {"type": "integer"},
                    },
                    "required": ["value", "label", "count"],
                },
            },
        }
        return response
