"""Stop any SQL statement of the web server that runs longer than a bound.

A pathological request then fails with an OperationalError (answered 503 by
`core.unavailable`) instead of holding a worker for minutes. PostgreSQL enforces
`statement_timeout` itself; SQLite has no such setting, so a progress handler
interrupts a statement once it has run too long. Only the web server's entry points
(`directory/wsgi.py`, `asgi.py`) switch it on: migrations and commands may run long.
"""

import time

from django.db import connections
from django.db.backends.base.base import BaseDatabaseWrapper
from django.db.backends.signals import connection_created

# SQLite calls the handler after this many virtual-machine instructions.
_SQLITE_STEPS = 10_000


def limit_statements(milliseconds: int) -> None:
    """Bound every statement of every connection, open now or opened later."""
    if milliseconds <= 0:
        return
    connection_created.connect(_on_connect, dispatch_uid="core.statement_timeout")
    _limits["ms"] = milliseconds
    for connection in connections.all(initialized_only=True):
        if connection.connection is not None:
            apply(connection, milliseconds)


def unlimit_statements() -> None:
    connection_created.disconnect(dispatch_uid="core.statement_timeout")
    for connection in connections.all(initialized_only=True):
        if connection.connection is not None:
            apply(connection, 0)


_limits = {"ms": 0}


def _on_connect(sender, connection: BaseDatabaseWrapper, **kwargs) -> None:
    apply(connection, _limits["ms"])


def apply(connection: BaseDatabaseWrapper, milliseconds: int) -> None:
    if connection.vendor == "postgresql":
        with connection.connection.cursor() as cursor:
            cursor.execute(f"SET statement_timeout = {int(milliseconds)}")
    elif connection.vendor == "sqlite":
        _SqliteDeadline.install(connection, milliseconds / 1000)


class _SqliteDeadline:
    """Each statement's start (an execute wrapper) and the handler that checks it."""

    def __init__(self, seconds: float) -> None:
        self.seconds = seconds
        self.started = time.monotonic()

    @classmethod
    def install(cls, connection: BaseDatabaseWrapper, seconds: float) -> None:
        connection.execute_wrappers[:] = [
            w for w in connection.execute_wrappers if not isinstance(w, cls)
        ]
        if not seconds:
            connection.connection.set_progress_handler(None, 0)
            return
        deadline = cls(seconds)
        connection.execute_wrappers.append(deadline)
        connection.connection.set_progress_handler(deadline.expired, _SQLITE_STEPS)

    def __call__(self, execute, sql, params, many, context):
        self.started = time.monotonic()
        return execute(sql, params, many, context)

    def expired(self) -> int:
        return int(time.monotonic() - self.started > self.seconds)
