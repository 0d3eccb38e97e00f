"""Read replicas (DATABASE_REPLICA_URLS): anonymous visitors read from a replica, and
everything else — writes, signed-in clients, commands, background threads — uses the
primary, so nobody who can write ever reads a replica that has not caught up.
A replica that is down or lags past REPLICA_MAX_LAG_SECONDS is left out until its
next probe finds it fit again (`core.replicas`).
"""

import contextvars
import random

from django.conf import settings
from django.db import connections

from core.replicas import replica_health

SAFE_METHODS = {"GET", "HEAD", "OPTIONS"}

_replica_allowed = contextvars.ContextVar("replica_allowed", default=False)


class PrimaryReplicaRouter:
    """Reads from a replica where `replica_reads` allows it; all else on the primary."""

    def db_for_read(self, model, **hints) -> str:
        if not _replica_allowed.get() or connections["default"].in_atomic_block:
            return "default"
        fit = [a for a in settings.DATABASE_REPLICAS if replica_health.fit(a)]
        return random.choice(fit) if fit else "default"

    def db_for_write(self, model, **hints) -> str:
        # What this request reads from now on includes what it has just written.
        _replica_allowed.set(False)
        return "default"

    def allow_relation(self, obj1, obj2, **hints) -> bool:
        return True  # every alias holds the same data

    def allow_migrate(self, db: str, app_label: str, **hints) -> bool:
        return db == "default"  # replicas follow the primary's schema


def replica_reads(get_response):
    """Let a request read from a replica when it is a read without credentials."""

    def middleware(request):
        allowed = (
            request.method in SAFE_METHODS
            and "HTTP_AUTHORIZATION" not in request.META
            and settings.SESSION_COOKIE_NAME not in request.COOKIES
        )
        token = _replica_allowed.set(allowed)
        try:
            return get_response(request)
        finally:
            _replica_allowed.reset(token)

    return middleware
