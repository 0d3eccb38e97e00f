"""One JSON shape for every API error: {"error": {status, code, message, fields?}}."""

from django.core.exceptions import PermissionDenied
from django.core.exceptions import ValidationError as DjangoValidationError
from django.http import Http404
from drf_spectacular.utils import OpenApiResponse, inline_serializer
from rest_framework import exceptions, serializers
from rest_framework.views import exception_handler


def api_exception_handler(exc, context):
    if isinstance(exc, Http404):
        exc = exceptions.NotFound()
    elif isinstance(exc, PermissionDenied):
        exc = exceptions.PermissionDenied()
    elif isinstance(exc, DjangoValidationError):
        exc = exceptions.ValidationError(
            exc.message_dict
            if hasattr(exc, "message_dict")
            else {"non_field_errors": exc.messages}
        )
    response = exception_handler(exc, context)
    if response is None:
        return None
    error = {
        "status": response.status_code,
        "code": _code(exc),
        "message": _message(exc),
    }
    if isinstance(exc, exceptions.ValidationError):
        error["message"] = "The request is not valid; see `fields`."
        detail = (
            response.data
            if isinstance(response.data, dict)
            else {"non_field_errors": response.data}
        )
        error["fields"] = detail
    if isinstance(exc, exceptions.Throttled) and exc.wait is not None:
        error["retry_after"] = int(exc.wait) + 1
    response.data = {"error": error}
    return response


def _code(exc) -> str:
    codes = exc.get_codes() if hasattr(exc, "get_codes") else "error"
    return codes if isinstance(codes, str) else getattr(exc, "default_code", "invalid")


def _message(exc) -> str:
    detail = getattr(exc, "detail", "")
    return (
        str(detail)
        if isinstance(detail, str)
        else str(getattr(exc, "default_detail", ""))
    )


_ERROR = inline_serializer(
    "Error",
    {
        "error": inline_serializer(
            "ErrorBody",
            {
                "status": serializers.IntegerField(),
                "code": serializers.CharField(),
                "message": serializers.CharField(),
                "fields": serializers.DictField(
                    child=serializers.ListField(child=serializers.CharField()),
                    required=False,
                    help_text="Per-field messages (400 only).",
                ),
                "retry_after": serializers.IntegerField(
                    required=False, help_text="Seconds to wait (429 only)."
                ),
            },
        )
    },
)

ERROR_RESPONSES = {
    400: OpenApiResponse(
        _ERROR, description="Invalid filter value, parameter or payload."
    ),
    401: OpenApiResponse(_ERROR, description="Authentication required for writes."),
    403: OpenApiResponse(_ERROR, description="The user lacks the model permission."),
    404: OpenApiResponse(_ERROR, description="No such record or page."),
    405: OpenApiResponse(_ERROR, description="Method not allowed."),
    429: OpenApiResponse(_ERROR, description="Too many requests; see Retry-After."),
}
