"""`/healthz` and `/readyz` for load balancers and orchestrators.

`/healthz`: the process answers (touches neither the database nor the cache).
`/readyz`: every registered check, as JSON; 503 when a critical one is down. The
database (reachable and migrated) is critical; the cache, the replicas and what
other apps register from their `ready()` (the job broker…) are not.

Both are answered by the first middleware, before host validation, the HTTPS
redirect, sessions, CSRF, throttling and sign-in: a probe addresses the server by
its own address, over plain HTTP, without cookies.

Anyone may ask, so an anonymous probe learns the status only (200 or 503 and
"ok", "degraded" or "down"): each check's details name hosts, users and errors,
and are shown to a probe that sends `Authorization: Bearer <HEALTH_TOKEN>`. The
checks run at most once per HEALTH_CHECK_CACHE_SECONDS per process, whoever asks,
so a service that hangs costs one check's timeout per period, not one per probe.
"""

import logging
import secrets
import threading
import time
from collections.abc import Callable

from django.conf import settings
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


_last_run: tuple[float, bool, dict[str, dict]] | None = None
_running = threading.Lock()


def recent_checks() -> tuple[bool, dict[str, dict]]:
    """`run_checks()`, or its result if it is younger than the cache period."""
    global _last_run
    period = settings.HEALTH_CHECK_CACHE_SECONDS
    if period <= 0:
        return run_checks()
    with _running:  # probes that come during a run wait for its result
        if _last_run is None or time.monotonic() - _last_run[0] >= period:
            _last_run = (time.monotonic(), *run_checks())
        return _last_run[1], _last_run[2]


def shows_details(request: HttpRequest) -> bool:
    """Whether the request carries the HEALTH_TOKEN (never, without one set)."""
    token = settings.HEALTH_TOKEN
    given = request.headers.get("Authorization", "")
    return bool(token) and secrets.compare_digest(
        given.encode(), f"Bearer {token}".encode()
    )


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
            ready, checks = recent_checks()
            all_ok = all(c["status"] == "ok" for c in checks.values())
            body = {"status": ("ok" if all_ok else "degraded") if ready else "down"}
            if shows_details(request):
                body["checks"] = checks
            response = JsonResponse(body, status=200 if ready else 503)
        response["Cache-Control"] = "no-store"
        return response

    return middleware
