"""A database that cannot answer is a 503 with Retry-After, never a 500.

Unreachable (stopped, network cut), out of connections, or a statement stopped by
the statement timeout (`core.statement_timeout`): people get `templates/503.html`,
API clients the API's JSON error shape. Django's health checks of persistent
connections reconnect by themselves once the database is back; a connection that
failed is closed at once besides, since SQLite's always passes that check: one
opened while the file was read-only stays read-only for CONN_MAX_AGE after it is
writable again.
"""

import logging

from django.conf import settings
from django.db import InterfaceError, OperationalError, connections
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.template.loader import render_to_string

from core.models import Lab
from core.replicas import replica_health

DATABASE_ERRORS = (OperationalError, InterfaceError)

logger = logging.getLogger("core.unavailable")


def service_unavailable(request: HttpRequest) -> HttpResponse:
    """The 503 answer: JSON under /api/, the site's page elsewhere."""
    close_failed_connections()
    retry_after = settings.RETRY_AFTER_SECONDS
    message = "The directory cannot reach its database just now; try again shortly."
    if request.path.startswith("/api/"):
        error = {
            "status": 503,
            "code": "service_unavailable",
            "message": message,
            "retry_after": retry_after,
        }
        response = JsonResponse({"error": error}, status=503)
    else:
        # Rendered without the request: its context processors would read the
        # session and the user from the database that is failing.
        # The lab's name only if the cache holds it: never a query.
        page = render_to_string(
            "503.html", {"lab": Lab.objects.cached(), "retry_after": retry_after}
        )
        response = HttpResponse(page, status=503)
    response["Retry-After"] = str(retry_after)
    response["Cache-Control"] = "no-store"
    return response


def close_failed_connections() -> None:
    """Close each connection that raised, so the next request opens a fresh one."""
    for connection in connections.all(initialized_only=True):
        if connection.errors_occurred and not connection.in_atomic_block:
            connection.close()


def database_unavailable(get_response):
    """Answer 503 when a view or its template fails on the database."""

    def middleware(request: HttpRequest) -> HttpResponse:
        return get_response(request)

    def process_exception(request: HttpRequest, exception: Exception):
        if not isinstance(exception, DATABASE_ERRORS):
            return None
        logger.warning(
            "Database unavailable for %s %s: %s",
            request.method,
            request.path,
            exception,
        )
        replica_health.recheck()  # the failing database may be a replica
        return service_unavailable(request)

    middleware.process_exception = process_exception
    return middleware
