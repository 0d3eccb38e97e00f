"""`/healthz` and `/readyz` for load balancers and orchestrators.

`/healthz`: the process answers (touches neither the database nor the cache).
`/readyz`: every registered check, as JSON; 503 when a critical one is down. The
database (reachable and migrated) is critical; the cache, the replicas and what
other apps register from their `ready()` (the job broker…) are not.

Both are answered by the first middleware, before host validation, the HTTPS
redirect, sessions, CSRF, throttling and sign-in: a probe addresses the server by
its own address, over plain HTTP, without cookies.
"""

import logging
import time
from collections.abc import Callable

from django.core.cache import caches
from django.db import DEFAULT_DB_ALIAS, connections
from django.db.migrations.executor import MigrationExecutor
from django.http import HttpRequest, HttpResponse, JsonResponse

from core.replicas import replica_health

STATUSES = ("ok", "degraded", "down")
Check = Callable[[], dict]

logger = logging.getLogger("core.health")
_checks: dict[str, tuple[Check, bool]] = {}


def register_check(name: str, check: Check, *, critical: bool) -> None:
    """Add `check` to /readyz: it returns {"status": "ok"|"degraded"|"down", …}."""
    _checks[name] = (check, critical)


def run_checks() -> tuple[bool, dict[str, dict]]:
    """Whether the site can serve, and each check's result."""
    ready = True
    results = {}
    for name, (check, critical) in _checks.items():
        started = time.perf_counter()
        try:
            result = dict(check())
            if result.get("status") not in STATUSES:
                raise ValueError(f"status {result.get('status')!r} not in {STATUSES}")
        except Exception as error:  # a check must never take /readyz down
            # The message may name hosts and users: the log has it, not the answer.
            logger.warning("Health check %s failed: %r", name, error)
            result = {"status": "down", "error": type(error).__name__}
        result["critical"] = critical
        result["ms"] = round((time.perf_counter() - started) * 1000, 1)
        ready = ready and not (critical and result["status"] == "down")
        results[name] = result
    return ready, results


_migrated: set[str] = set()


def database() -> dict:
    connection = connections[DEFAULT_DB_ALIAS]
    with connection.cursor() as cursor:
        cursor.execute("SELECT 1")
    if connection.alias not in _migrated:
        executor = MigrationExecutor(connection)
        pending = executor.migration_plan(executor.loader.graph.leaf_nodes())
        if pending:
            return {
                "status": "down",
                "vendor": connection.vendor,
                "error": f"{len(pending)} migrations not applied",
            }
        _migrated.add(connection.alias)  # once migrated, a process stays so
    return {"status": "ok", "vendor": connection.vendor}


def cache() -> dict:
    backend = caches["default"]
    if hasattr(backend, "status"):
        return backend.status()
    return {"status": "ok", "backend": type(backend).__name__}


def replicas() -> dict:
    return replica_health.report()


def register_defaults() -> None:
    register_check("database", database, critical=True)
    register_check("cache", cache, critical=False)
    register_check("replicas", replicas, critical=False)


def health_endpoints(get_response):
    """Answer /healthz and /readyz before any other middleware runs."""

    def middleware(request: HttpRequest) -> HttpResponse:
        path = request.path_info.rstrip("/")
        if path not in ("/healthz", "/readyz"):
            return get_response(request)
        if request.method not in ("GET", "HEAD"):
            response = JsonResponse({"status": "method not allowed"}, status=405)
            response["Allow"] = "GET, HEAD"
            return response
        if path == "/healthz":
            response = JsonResponse({"status": "ok"})
        else:
            ready, checks = run_checks()
            all_ok = all(c["status"] == "ok" for c in checks.values())
            status = ("ok" if all_ok else "degraded") if ready else "down"
            response = JsonResponse(
                {"status": status, "checks": checks}, status=200 if ready else 503
            )
        response["Cache-Control"] = "no-store"
        return response

    return middleware
