"""/healthz and /readyz: what a load balancer or an orchestrator asks."""

import pytest
from django.db import OperationalError, connections
from django.test import override_settings

from core import health

pytestmark = pytest.mark.django_db
TOKEN = "probe-token-0123456789"


@pytest.fixture
def staff_probe(client, settings):
    """A client that sends the HEALTH_TOKEN: /readyz shows it every check."""
    settings.HEALTH_TOKEN = TOKEN
    client.defaults["HTTP_AUTHORIZATION"] = f"Bearer {TOKEN}"
    return client


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


def test_readyz_lists_the_database_cache_and_replicas(staff_probe):
    response = staff_probe.get("/readyz")
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


@pytest.fixture
def database_down(monkeypatch):
    def refuse(*args, **kwargs):
        raise OperationalError("connection to db.internal refused")

    monkeypatch.setattr(connections["default"], "cursor", refuse)


def test_a_database_that_is_down_makes_readyz_503(staff_probe, database_down):
    response = staff_probe.get("/readyz")
    assert response.status_code == 503
    body = response.json()
    assert body["status"] == "down"
    assert body["checks"]["database"]["status"] == "down"
    # The error's kind only: its message may name hosts and users.
    assert body["checks"]["database"]["error"] == "OperationalError"
    assert staff_probe.get("/healthz").status_code == 200


def test_a_non_critical_check_down_degrades_without_503(staff_probe, extra_check):
    extra_check("broker", lambda: {"status": "down", "url": "amqp://…"}, critical=False)
    response = staff_probe.get("/readyz")
    assert response.status_code == 200
    assert response.json()["status"] == "degraded"
    assert response.json()["checks"]["broker"]["status"] == "down"


def test_a_check_that_raises_or_answers_nonsense_is_down(staff_probe, extra_check):
    extra_check("raises", lambda: 1 / 0, critical=False)
    extra_check("nonsense", lambda: {"status": "fine"}, critical=True)
    response = staff_probe.get("/readyz")
    assert response.status_code == 503
    checks = response.json()["checks"]
    assert checks["raises"]["status"] == "down"
    assert checks["raises"]["error"] == "ZeroDivisionError"
    assert checks["nonsense"]["status"] == "down"


def test_unmigrated_database_is_down(staff_probe, monkeypatch):
    monkeypatch.setattr(health, "_migrated", set())
    monkeypatch.setattr(
        "django.db.migrations.executor.MigrationExecutor.migration_plan",
        lambda self, targets: [("a migration", False)],
    )
    response = staff_probe.get("/readyz")
    assert response.status_code == 503
    assert response.json()["checks"]["database"]["error"] == "1 migrations not applied"


def test_only_get_and_head(client):
    assert client.post("/readyz").status_code == 405
    assert client.head("/healthz").status_code == 200


def test_anonymous_probes_learn_only_ok_or_not(client, extra_check):
    secret = "amqp://lab:hunter2@broker.internal:5672/lab"
    extra_check("broker", lambda: {"status": "down", "detail": secret}, critical=False)
    response = client.get("/readyz")
    assert response.status_code == 200
    assert response.json() == {"status": "degraded"}
    assert "broker.internal" not in response.content.decode()


@pytest.mark.parametrize(
    "header", ["", "Bearer wrong-token", f"Token {TOKEN}", f"Bearer {TOKEN}x"]
)
def test_without_the_right_token_no_details(client, settings, header):
    settings.HEALTH_TOKEN = TOKEN
    response = client.get("/readyz", HTTP_AUTHORIZATION=header)
    assert response.json() == {"status": "ok"}


def test_without_a_configured_token_nobody_gets_details(client, settings):
    settings.HEALTH_TOKEN = ""
    response = client.get("/readyz", HTTP_AUTHORIZATION="Bearer ")
    assert response.json() == {"status": "ok"}


def test_a_database_down_is_503_for_anonymous_probes_too(client, database_down):
    response = client.get("/readyz")
    assert response.status_code == 503
    assert response.json() == {"status": "down"}
