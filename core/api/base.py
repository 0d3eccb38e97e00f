from django.db import transaction
from django.db.models import Model
from django.utils.http import http_date, parse_etags
from django_filters.rest_framework import DjangoFilterBackend
from drf_spectacular.utils import OpenApiExample, OpenApiParameter, extend_schema
from rest_framework import serializers, viewsets
from rest_framework.exceptions import ValidationError
from rest_framework.request import Request
from rest_framework.response import Response

from core import concurrency
from core.api.errors import (
    CONFLICT_RESPONSE,
    ERROR_RESPONSES,
    PRECONDITION_FAILED_RESPONSE,
    PreconditionFailed,
)
from core.api.ordering import Ordering
from core.api.pagination import Pagination

# Query parameters every list endpoint understands besides its filters.
COMMON_PARAMETERS = {"page", "page_size", "format", "facets", "ordering"}


class ReadWriteViewSet(viewsets.ModelViewSet):
    """Lookups by slug; reads are open, writes need the model permission.

    Lists are filtered, ordered and paged; a detail reads with
    `detail_serializer_class` and refuses any query parameter but `format`. Writes
    validate with `write_serializer_class` and answer with the read representation,
    so a client sees what a later GET will return. A record with `updated_at` is
    versioned: its ETag names the version, and a write whose If-Match names another
    one is refused with 412 (see core/concurrency.py).
    """

    lookup_field = "slug"
    lookup_value_regex = r"[-a-zA-Z0-9_]+"
    pagination_class = Pagination
    filter_backends = [DjangoFilterBackend, Ordering]
    ordering_fields: list[str] = []
    detail_serializer_class: type[serializers.Serializer] | None = None
    write_serializer_class: type[serializers.Serializer] | None = None

    def get_serializer_class(self):
        if self.action in ("create", "update", "partial_update"):
            return self.write_serializer_class or self.serializer_class
        if self.action == "retrieve":
            return self.detail_serializer_class or self.serializer_class
        return self.serializer_class

    def filter_queryset(self, queryset):
        # A list's filters and ordering select among records; a record named by
        # its slug is that record, whatever else the query string says.
        if self.action != "list":
            return queryset
        return super().filter_queryset(queryset)

    def finalize_response(self, request, response, *args, **kwargs):
        response = super().finalize_response(request, response, *args, **kwargs)
        # The same URL answers in JSON, BibTeX or CSL depending on Accept.
        response.headers.setdefault("Vary", "Accept")
        return response

    def retrieve(self, request: Request, *args, **kwargs) -> Response:
        self.reject_parameters_besides({"format"})
        instance = self.get_object()
        return self.with_version(Response(self.get_serializer(instance).data), instance)

    def create(self, request: Request, *args, **kwargs) -> Response:
        serializer = self.get_serializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        # A create that loses a race for a unique value rolls back alone (409).
        with transaction.atomic():
            instance = serializer.save()
        data = self.read_representation(instance)
        # The serializer's `url` is a DRF Hyperlink (a str subclass); WSGI servers
        # accept only plain strings as header values.
        headers = {"Location": str(data["url"])} if data.get("url") else {}
        response = Response(data, status=201, headers=headers)
        return self.with_version(response, instance)

    def update(self, request: Request, *args, **kwargs) -> Response:
        partial = kwargs.pop("partial", False)
        with transaction.atomic():
            serializer = self.get_serializer(
                self.get_object_for_write(), data=request.data, partial=partial
            )
            serializer.is_valid(raise_exception=True)
            instance = serializer.save()
        return self.with_version(Response(self.read_representation(instance)), instance)

    def destroy(self, request: Request, *args, **kwargs) -> Response:
        with transaction.atomic():
            self.perform_destroy(self.get_object_for_write())
        return Response(status=204)

    def get_object_for_write(self) -> Model:
        """The record, locked until the transaction ends; 412 if If-Match is stale."""
        model = self.get_queryset().model
        lookup = {
            self.lookup_field: self.kwargs[self.lookup_url_kwarg or self.lookup_field]
        }
        # Lock before reading, so that the record read is the latest saved one.
        list(
            model._default_manager.select_for_update()
            .filter(**lookup)
            .order_by()
            .values_list("pk", flat=True)
        )
        instance = self.get_object()
        if_match = self.request.headers.get("If-Match")
        if if_match is not None and concurrency.is_versioned(model):
            tags = parse_etags(if_match)
            if tags != ["*"] and concurrency.etag(instance) not in tags:
                raise PreconditionFailed(
                    f"The {model._meta.verbose_name} was changed by someone else "
                    "since you read it: If-Match does not name its current ETag. "
                    "GET it again and reapply your change."
                )
        return instance

    def with_version(self, response: Response, instance: Model) -> Response:
        if concurrency.is_versioned(type(instance)):
            response["ETag"] = concurrency.etag(instance)
            response["Last-Modified"] = http_date(instance.updated_at.timestamp())
        return response

    def list(self, request: Request, *args, **kwargs) -> Response:
        self.reject_unknown_parameters(self.filterset_for_view())
        return super().list(request, *args, **kwargs)

    def filterset_for_view(self):
        return DjangoFilterBackend().get_filterset_class(self, self.get_queryset())

    def reject_unknown_parameters(self, filterset_class) -> None:
        self.reject_parameters_besides(
            set(filterset_class.base_filters if filterset_class else ())
            | COMMON_PARAMETERS
        )

    def reject_parameters_besides(self, known: set[str]) -> None:
        unknown = sorted(set(self.request.query_params) - known)
        if unknown:
            # A misspelt filter must not silently return everything.
            raise ValidationError(
                {name: ["Unknown query parameter."] for name in unknown}
            )

    def read_representation(self, instance: Model) -> dict:
        instance = self.get_queryset().get(pk=instance.pk)
        serializer_class = self.detail_serializer_class or self.serializer_class
        return serializer_class(instance, context=self.get_serializer_context()).data


ERROR_EXAMPLE = OpenApiExample(
    "An invalid filter value",
    value={
        "error": {
            "status": 400,
            "code": "invalid",
            "message": "The request is not valid; see `fields`.",
            "fields": {"year": ["“20x5” is not a year."]},
        }
    },
    response_only=True,
    status_codes=["400"],
)


def detail_schema(serializer_class, **kwargs):
    return extend_schema(
        responses={
            200: serializer_class,
            **{k: ERROR_RESPONSES[k] for k in (404, 429, 503)},
        },
        **kwargs,
    )


IF_MATCH_PARAMETER = OpenApiParameter(
    "If-Match",
    str,
    OpenApiParameter.HEADER,
    description="The `ETag` of a GET of this record. Send it: when someone else "
    "has changed the record since, the write is refused with 412 instead of "
    "silently overwriting their change.",
)


def write_schemas(read_serializer, write_serializer) -> dict:
    """Documented answers of the write verbs, errors included."""
    errors = {k: v for k, v in ERROR_RESPONSES.items() if k != 405}
    versioned = concurrency.is_versioned(read_serializer.Meta.model)
    conditional = {"parameters": [IF_MATCH_PARAMETER]} if versioned else {}
    changes = {**errors, 412: PRECONDITION_FAILED_RESPONSE} if versioned else errors
    return {
        "create": extend_schema(
            request=write_serializer, responses={201: read_serializer, **errors}
        ),
        "update": extend_schema(
            request=write_serializer,
            responses={200: read_serializer, **changes},
            **conditional,
        ),
        "partial_update": extend_schema(
            request=write_serializer,
            responses={200: read_serializer, **changes},
            **conditional,
        ),
        "destroy": extend_schema(
            responses={204: None, **changes, 409: CONFLICT_RESPONSE}, **conditional
        ),
    }
