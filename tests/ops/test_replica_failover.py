"""A read replica that refuses connections or lags too far is left out: reads go to
the primary, and back to the replica once a probe finds it fit again."""

import pytest
from django.db import connections
from django.test.utils import CaptureQueriesContext

from core import replicas as replica_module
from core.replicas import replica_health
from tests.ops.faultproxy import REFUSE, FaultProxy
from tests.ops.test_replicas import lab, queries, replicas  # noqa: F401

pytestmark = [
    pytest.mark.django_db(transaction=True, databases=["default", "replica1"]),
    pytest.mark.usefixtures("replicas", "lab"),
]
PAGE = "/people/?q=replica"


PROBE = "Bearer replicas-probe"


@pytest.fixture
def fresh_health(settings, monkeypatch):
    settings.REPLICA_CHECK_SECONDS = 60
    settings.HEALTH_TOKEN = "replicas-probe"  # /readyz then shows its checks
    monkeypatch.setattr(replica_health, "_state", {})


@pytest.fixture
def replica_link(monkeypatch):
    """Cut and restore the replica: its server behind a proxy (PostgreSQL), or its
    file moved out of reach (SQLite)."""
    connection = connections["replica1"]
    connection.close()
    if connection.vendor == "postgresql":
        proxy = FaultProxy(int(connection.settings_dict["PORT"] or 5432))
        monkeypatch.setitem(connection.settings_dict, "HOST", "127.0.0.1")
        monkeypatch.setitem(connection.settings_dict, "PORT", str(proxy.port))

        def cut():
            proxy.cut(REFUSE)
            connection.close()

        yield cut, proxy.restore
        proxy.close()
    else:
        name = connection.settings_dict["NAME"]

        def cut():
            # Renamed first: Django never closes an in-memory database.
            connection.settings_dict["NAME"] = "/nonexistent/replica.sqlite3"
            connection.close()

        def restore():
            connection.settings_dict["NAME"] = name

        yield cut, restore
        restore()
    connection.close()


def test_a_replica_that_refuses_connections_is_left_out_until_it_answers(
    client, fresh_health, replica_link
):
    cut, restore = replica_link
    replica_health.probe("replica1")
    response, on_primary, on_replica = queries(client.get, PAGE)
    assert response.status_code == 200 and on_primary == 0 and on_replica > 0

    cut()
    assert replica_health.probe("replica1")["status"] == "down"
    with CaptureQueriesContext(connections["default"]) as primary:
        response = client.get(PAGE)
    assert response.status_code == 200 and len(primary) > 0
    assert connections["replica1"].connection is None  # not even tried
    ready = client.get("/readyz", HTTP_AUTHORIZATION=PROBE)
    assert ready.status_code == 200
    report = ready.json()["checks"]["replicas"]
    assert report["status"] == "degraded"
    assert report["replicas"]["replica1"]["status"] == "down"

    restore()
    # Until its next probe the router keeps to the primary…
    with CaptureQueriesContext(connections["default"]) as primary:
        client.get("/people/?q=lena")
    assert len(primary) > 0 and connections["replica1"].connection is None
    replica_health.probe("replica1")  # …as when REPLICA_CHECK_SECONDS have passed
    response, on_primary, on_replica = queries(client.get, PAGE)
    assert response.status_code == 200 and on_primary == 0 and on_replica > 0
    assert (
        client.get("/readyz", HTTP_AUTHORIZATION=PROBE).json()["checks"]["replicas"][
            "status"
        ]
        == "ok"
    )


def test_a_replica_lagging_past_the_bound_is_left_out(
    client, fresh_health, settings, monkeypatch
):
    settings.REPLICA_MAX_LAG_SECONDS = 30
    vendor = connections["replica1"].vendor
    monkeypatch.setitem(replica_module._LAG_SQL, vendor, "SELECT 95")
    replica_health.probe("replica1")
    _, on_primary, on_replica = queries(client.get, PAGE)
    assert on_primary > 0 and on_replica == 0
    state = client.get("/readyz", HTTP_AUTHORIZATION=PROBE).json()["checks"][
        "replicas"
    ]["replicas"]["replica1"]
    assert state == {"status": "degraded", "lag_s": 95.0, "max_lag_s": 30}

    monkeypatch.setitem(replica_module._LAG_SQL, vendor, "SELECT 2")
    replica_health.probe("replica1")
    _, on_primary, on_replica = queries(client.get, PAGE)
    assert on_primary == 0 and on_replica > 0
