"""Read replicas: anonymous reads from the replica, everything else from the primary.

The test replica mirrors the test database (committed data, so both connections see
it); the router and its middleware are switched on as DATABASE_REPLICA_URLS does.
"""

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from django.core.cache import cache
from django.db import connections, router, transaction
from django.test.utils import CaptureQueriesContext
from django.urls import reverse
from rest_framework.authtoken.models import Token

from people.models import Person
from people.similarity import compute_similar
from tests import factories

BASE_DIR = Path(__file__).resolve().parents[2]
pytestmark = pytest.mark.django_db(transaction=True, databases=["default", "replica1"])


@pytest.fixture
def replicas(settings):
    settings.DATABASE_REPLICAS = ["replica1"]
    settings.DATABASE_ROUTERS = ["directory.routers.PrimaryReplicaRouter"]
    settings.MIDDLEWARE = [
        *settings.MIDDLEWARE[:2],
        "directory.routers.replica_reads",
        *settings.MIDDLEWARE[2:],
    ]


@pytest.fixture
def lab():
    member = factories.person(given_name="Lena", family_name="Replica")
    paper = factories.publication(title="Replicated caches", authors=[member])
    return member, paper


def queries(request, *args, **kwargs) -> tuple[object, int, int]:
    """The response, and how many queries it sent to the primary and the replica."""
    cache.clear()  # each request builds its page, and reads what that needs
    with (
        CaptureQueriesContext(connections["default"]) as primary,
        CaptureQueriesContext(connections["replica1"]) as replica,
    ):
        response = request(*args, **kwargs)
    return response, len(primary), len(replica)


@pytest.mark.parametrize(
    "path",
    [
        "/",
        "/people/?q=replica",
        "/people/{member}/",
        "/publications/{paper}/",
        "/api/people/?facets=role",
        "/api/publications/{paper}/",
    ],
)
def test_anonymous_reads_go_to_the_replica(client, replicas, lab, path):
    member, paper = lab
    # Similar-researcher lists are written ahead (a stale one is written on the
    # request that reads it first, and a request that wrote reads the primary).
    compute_similar()
    url = path.format(member=member.slug, paper=paper.slug)
    response, on_primary, on_replica = queries(client.get, url)
    assert response.status_code == 200
    assert on_primary == 0 and on_replica > 0


def test_without_replicas_everything_reads_from_the_primary(client, lab):
    response, on_primary, on_replica = queries(client.get, "/people/?q=replica")
    assert response.status_code == 200
    assert on_primary > 0 and on_replica == 0


def test_signed_in_staff_read_from_the_primary(replicas, lab, admin_client_logged_in):
    for url in ["/people/?q=replica", reverse("admin:people_person_changelist")]:
        response, _, on_replica = queries(admin_client_logged_in.get, url)
        assert response.status_code == 200
        assert on_replica == 0


def test_api_clients_with_a_token_read_their_writes_from_the_primary(
    client, replicas, lab, django_user_model
):
    member, _ = lab
    user = django_user_model.objects.create_superuser("api", "api@example.org", "x")
    auth = {"HTTP_AUTHORIZATION": f"Token {Token.objects.create(user=user).key}"}
    response, _, on_replica = queries(
        client.patch,
        f"/api/people/{member.slug}/",
        data=json.dumps({"headline": "Now on the primary"}),
        content_type="application/json",
        **auth,
    )
    assert response.status_code == 200, response.content
    assert response.json()["headline"] == "Now on the primary"
    response, _, on_replica_after = queries(
        client.get, f"/api/people/{member.slug}/", **auth
    )
    assert response.json()["headline"] == "Now on the primary"
    assert on_replica == on_replica_after == 0


def test_within_a_request_a_write_sends_later_reads_to_the_primary(replicas, lab):
    from directory.routers import _replica_allowed

    token = _replica_allowed.set(True)
    try:
        assert router.db_for_read(Person) == "replica1"
        assert router.db_for_write(Person) == "default"
        assert router.db_for_read(Person) == "default"
    finally:
        _replica_allowed.reset(token)


def test_transactions_read_from_the_primary(replicas, lab):
    from directory.routers import _replica_allowed

    token = _replica_allowed.set(True)
    try:
        with transaction.atomic():
            assert router.db_for_read(Person) == "default"
    finally:
        _replica_allowed.reset(token)


def test_outside_requests_commands_and_threads_read_from_the_primary(replicas, lab):
    assert router.db_for_read(Person) == "default"
    assert router.allow_migrate("default", "people")
    assert not router.allow_migrate("replica1", "people")


def settings_with(**env: str) -> subprocess.CompletedProcess:
    code = (
        "import json, directory.settings as s; print(json.dumps({"
        "'replicas': s.DATABASE_REPLICAS, "
        "'routers': getattr(s, 'DATABASE_ROUTERS', []), "
        "'middleware': s.MIDDLEWARE, "
        "'databases': {a: [d['ENGINE'], d['HOST'], d['NAME'], d.get('TEST', {})] "
        "for a, d in s.DATABASES.items()}}))"
    )
    return subprocess.run(
        [sys.executable, "-c", code],
        env={"PATH": os.environ["PATH"], "DEBUG": "0", "SECRET_KEY": "k" * 50, **env},
        cwd=BASE_DIR,
        capture_output=True,
        text=True,
    )


def test_each_replica_url_becomes_a_mirrored_alias_behind_the_router():
    done = settings_with(
        DATABASE_URL="postgres://app@primary:5432/lab",
        DATABASE_REPLICA_URLS="postgres://app@replica-a:5432/lab, "
        "postgres://app@replica-b:5432/lab",
    )
    assert done.returncode == 0, done.stderr
    found = json.loads(done.stdout)
    assert found["replicas"] == ["replica1", "replica2"]
    assert found["databases"]["replica2"] == [
        "django.db.backends.postgresql",
        "replica-b",
        "lab",
        {"MIRROR": "default"},
    ]
    assert found["routers"] == ["directory.routers.PrimaryReplicaRouter"]
    assert "directory.routers.replica_reads" in found["middleware"]

    without = json.loads(settings_with(DATABASE_URL="postgres://app@p/lab").stdout)
    assert without["replicas"] == [] and without["routers"] == []
    assert "directory.routers.replica_reads" not in without["middleware"]


def test_a_replica_of_another_kind_of_database_is_refused():
    done = settings_with(
        DATABASE_URL="postgres://app@primary:5432/lab",
        DATABASE_REPLICA_URLS="sqlite:///elsewhere.sqlite3",
    )
    assert done.returncode != 0
    assert "replica 1 is not the same kind of database" in done.stderr
