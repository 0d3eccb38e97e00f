"""/healthz and /readyz: what a load balancer or an orchestrator asks."""

import pytest
from django.db import OperationalError, connections
from django.test import override_settings

from core import health

pytestmark = pytest.mark.django_db


@pytest.fixture
def extra_check():
    registered = dict(health._checks)

    def add(name, check, *, critical):
        health.register_check(name, check, critical=critical)

    yield add
    # As it was: a check an app registered (the job queue's "broker") comes back.
    health._checks.clear()
    health._checks.update(registered)


def test_healthz_answers_without_the_database_or_the_cache(
    client, django_assert_num_queries, monkeypatch
):
    def refuse(*args, **kwargs):
        raise AssertionError("the cache was asked")

    monkeypatch.setattr("django.core.cache.backends.locmem.LocMemCache.get", refuse)
    with django_assert_num_queries(0):
        response = client.get("/healthz")
    assert response.status_code == 200
    assert response.json() == {"status": "ok"}
    assert response["Cache-Control"] == "no-store"
    assert "Set-Cookie" not in response and "X-Request-ID" not in response


def test_readyz_lists_the_database_cache_and_replicas(client):
    response = client.get("/readyz")
    assert response.status_code == 200
    body = response.json()
    assert body["status"] == "ok"
    assert {"database", "cache", "replicas"} <= set(body["checks"])
    assert body["checks"]["database"]["status"] == "ok"
    assert body["checks"]["database"]["critical"] is True
    assert body["checks"]["cache"] == {**body["checks"]["cache"], "status": "ok"}
    assert body["checks"]["cache"]["critical"] is False


@override_settings(
    ALLOWED_HOSTS=["lab.example.org"], SECURE_SSL_REDIRECT=True, DEBUG=False
)
def test_probes_by_address_over_plain_http_are_answered(client):
    for path in ["/healthz", "/readyz", "/readyz/"]:
        response = client.get(path, HTTP_HOST="10.0.0.7:8000")
        assert response.status_code == 200, path
    # Any other page still insists on a known host.
    assert client.get("/", HTTP_HOST="10.0.0.7:8000").status_code == 400


def test_a_database_that_is_down_makes_readyz_503(client, monkeypatch):
    def refuse(*args, **kwargs):
        raise OperationalError("connection refused")

    monkeypatch.setattr(connections["default"], "cursor", refuse)
    response = client.get("/readyz")
    assert response.status_code == 503
    body = response.json()
    assert body["status"] == "down"
    assert body["checks"]["database"]["status"] == "down"
    # The error's kind only: its message may name hosts and users.
    assert body["checks"]["database"]["error"] == "OperationalError"
    assert client.get("/healthz").status_code == 200


def test_a_non_critical_check_down_degrades_without_503(client, extra_check):
    extra_check("broker", lambda: {"status": "down", "url": "amqp://…"}, critical=False)
    response = client.get("/readyz")
    assert response.status_code == 200
    assert response.json()["status"] == "degraded"
    assert response.json()["checks"]["broker"]["status"] == "down"


def test_a_check_that_raises_or_answers_nonsense_is_down(client, extra_check):
    extra_check("raises", lambda: 1 / 0, critical=False)
    extra_check("nonsense", lambda: {"status": "fine"}, critical=True)
    response = client.get("/readyz")
    assert response.status_code == 503
    checks = response.json()["checks"]
    assert checks["raises"]["status"] == "down"
    assert checks["raises"]["error"] == "ZeroDivisionError"
    assert checks["nonsense"]["status"] == "down"


def test_unmigrated_database_is_down(client, monkeypatch):
    monkeypatch.setattr(health, "_migrated", set())
    monkeypatch.setattr(
        "django.db.migrations.executor.MigrationExecutor.migration_plan",
        lambda self, targets: [("a migration", False)],
    )
    response = client.get("/readyz")
    assert response.status_code == 503
    assert response.json()["checks"]["database"]["error"] == "1 migrations not applied"


def test_only_get_and_head(client):
    assert client.post("/readyz").status_code == 405
    assert client.head("/healthz").status_code == 200
