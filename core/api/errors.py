"""One JSON shape for every API error: {"error": {status, code, message, fields?}}."""

import logging
import re
from collections import Counter

from django.core.exceptions import (
    PermissionDenied,
    RequestDataTooBig,
    TooManyFieldsSent,
    TooManyFilesSent,
)
from django.core.exceptions import ValidationError as DjangoValidationError
from django.db import IntegrityError
from django.db.models import ProtectedError, RestrictedError
from django.http import Http404
from drf_spectacular.utils import (
    OpenApiResponse,
    extend_schema_field,
    inline_serializer,
)
from rest_framework import exceptions, serializers
from rest_framework.views import exception_handler

_OVERSIZED = (RequestDataTooBig, TooManyFieldsSent, TooManyFilesSent)


class RequestTooLarge(exceptions.APIException):
    status_code = 413
    default_detail = "The request body is larger than the server accepts."
    default_code = "request_too_large"


def api_exception_handler(exc, context):
    if isinstance(exc, _OVERSIZED):
        # Django would answer its HTML 400 page; logged where Django logs them.
        logging.getLogger(f"django.security.{type(exc).__name__}").error(str(exc))
        exc = (
            RequestTooLarge()
            if isinstance(exc, RequestDataTooBig)
            else exceptions.ParseError("The request has too many fields or files.")
        )
    elif isinstance(exc, Http404):
        exc = exceptions.NotFound()
    elif isinstance(exc, ProtectedError | RestrictedError):
        exc = Conflict(_still_referenced(exc))
    elif isinstance(exc, IntegrityError) and _unique_violation(exc):
        exc = Conflict(_taken(exc))
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
    elif getattr(exc, "wait", None):  # a 503 that says when to come back
        error["retry_after"] = int(exc.wait)
    response.data = {"error": error}
    renderer = getattr(context.get("request"), "accepted_renderer", None)
    if getattr(renderer, "format", "json") not in ("json", "api"):
        # An error is JSON whatever format was asked for, and says so.
        response.content_type = "application/json"
    return response


class Conflict(exceptions.APIException):
    status_code = 409
    default_code = "conflict"
    default_detail = "Other records still refer to this one."


def _still_referenced(exc: ProtectedError | RestrictedError) -> str:
    """Which records block a delete, so the client knows what to change first."""
    found = (
        exc.protected_objects
        if isinstance(exc, ProtectedError)
        else exc.restricted_objects
    )
    counts = Counter(obj._meta.verbose_name for obj in found)
    plurals = {obj._meta.verbose_name: obj._meta.verbose_name_plural for obj in found}
    kinds = ", ".join(
        f"{n} {name if n == 1 else plurals[name]}" for name, n in sorted(counts.items())
    )
    return f"Still referred to by {kinds}: change or delete those first."


def _unique_violation(exc: IntegrityError) -> bool:
    """A write that lost a race: its checks passed, then another took the value."""
    cause = exc.__cause__
    return (
        getattr(cause, "sqlstate", None) == "23505"  # PostgreSQL
        or getattr(cause, "sqlite_errorname", None) == "SQLITE_CONSTRAINT_UNIQUE"
    )


def _taken(exc: IntegrityError) -> str:
    cause = exc.__cause__
    detail = getattr(getattr(cause, "diag", None), "message_detail", None)
    if detail:  # PostgreSQL: "Key (slug)=(graphs) already exists."
        fields = re.findall(r"Key \((.+?)\)=", detail)
    else:  # SQLite: "UNIQUE constraint failed: directory_topic.slug"
        fields = [c.rpartition(".")[2] for c in str(exc).partition(": ")[2].split(", ")]
    named = ", ".join(f for f in fields if f) or "unique value"
    return (
        f"Another record with the same {named} was saved at the same time as this "
        "one: GET it, or send yours again with another value."
    )


class PreconditionFailed(exceptions.APIException):
    status_code = 412
    default_code = "precondition_failed"
    default_detail = "The record has changed since the version named in If-Match."


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


@extend_schema_field(
    {
        "anyOf": [
            {
                "type": "array",
                "items": {"anyOf": [{"type": "string"}, {"type": "object"}]},
            },
            {"type": "object"},
        ]
    }
)
class _FieldErrors(serializers.JSONField):
    """A field's messages; nested data (authors, links) nests them per item or key."""


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
                    child=_FieldErrors(),
                    required=False,
                    help_text="Per-field messages (400 only).",
                ),
                "retry_after": serializers.IntegerField(
                    required=False, help_text="Seconds to wait (429 and 503 only)."
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
    503: OpenApiResponse(
        _ERROR,
        description="The database is unavailable, or the request ran past the "
        "statement timeout; see Retry-After.",
    ),
}

CONFLICT_RESPONSE = OpenApiResponse(
    _ERROR, description="Other records still refer to this one; see `message`."
)

PRECONDITION_FAILED_RESPONSE = OpenApiResponse(
    _ERROR,
    description="If-Match names another version: someone else changed the record "
    "since it was read. GET it again and reapply the change.",
)
