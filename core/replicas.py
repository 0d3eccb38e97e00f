"""Which read replicas are fit to read from: reachable, and not lagging too far.

Each replica is probed at most once per REPLICA_CHECK_SECONDS, by the first read
that wants it after that; the router (`directory/routers.py`) reads from the fit
ones only, and from the primary when none is. A replica that comes back (or
catches up) is used again after its next probe.
"""

import logging
import threading
import time

from django.conf import settings
from django.db import DatabaseError, connections

logger = logging.getLogger("core.replicas")

# On a PostgreSQL standby: seconds since the last transaction it replayed, or 0
# when it has replayed all it received (an idle primary sends nothing new); on a
# server that is not in recovery (a test mirror, SQLite), 0.
_LAG_SQL = {
    "postgresql": (
        "SELECT CASE WHEN NOT pg_is_in_recovery() "
        "OR pg_last_wal_receive_lsn() = pg_last_wal_replay_lsn() THEN 0 "
        "ELSE COALESCE(EXTRACT(EPOCH FROM now() - pg_last_xact_replay_timestamp()), 0) "
        "END"
    ),
}


class ReplicaHealth:
    def __init__(self) -> None:
        self._state: dict[str, dict] = {}
        self._lock = threading.Lock()

    def fit(self, alias: str) -> bool:
        """Whether reads may go to this replica (probing it if its state is old)."""
        state = self._state.get(alias)
        if state is None or time.monotonic() >= state["next_check"]:
            state = self.probe(alias)
        return state["status"] == "ok"

    def probe(self, alias: str) -> dict:
        connection = connections[alias]
        try:
            with connection.cursor() as cursor:
                cursor.execute(_LAG_SQL.get(connection.vendor, "SELECT 0"))
                lag = float(cursor.fetchone()[0])
        except DatabaseError as error:
            connection.close_if_unusable_or_obsolete()
            logger.warning("Replica %s unavailable: %s", alias, error)
            state = {"status": "down", "error": type(error).__name__}
        else:
            bound = settings.REPLICA_MAX_LAG_SECONDS
            status = "ok" if lag <= bound else "degraded"
            state = {"status": status, "lag_s": round(lag, 1), "max_lag_s": bound}
        state["next_check"] = time.monotonic() + settings.REPLICA_CHECK_SECONDS
        with self._lock:
            self._state[alias] = state
        return state

    def recheck(self) -> None:
        """Probe every replica again on its next use (a read just failed)."""
        with self._lock:
            for state in self._state.values():
                state["next_check"] = 0.0

    def report(self) -> dict:
        """The /readyz check: each replica's state, probed now if it is old."""
        replicas = {}
        for alias in settings.DATABASE_REPLICAS:
            self.fit(alias)
            replicas[alias] = {
                k: v for k, v in self._state[alias].items() if k != "next_check"
            }
        if not replicas:
            return {"status": "ok", "replicas": {}}
        fit = [a for a, s in replicas.items() if s["status"] == "ok"]
        # Reads fall back to the primary: a replica down degrades the site only.
        return {
            "status": "ok" if len(fit) == len(replicas) else "degraded",
            "replicas": replicas,
        }


replica_health = ReplicaHealth()
