"""The API's writes over real HTTP: a WSGI server checks what the test client does not
(header values must be plain strings), so a create that answers 201 in the test client
could still answer 500 to every real client after saving."""

import json
import urllib.error
import urllib.request

import pytest
from django.contrib.auth.models import Permission
from rest_framework.authtoken.models import Token

from tests.site.test_api import WRITES


def _send(url: str, method: str, token: str, payload: dict | None = None):
    request = urllib.request.Request(
        url,
        method=method,
        data=None if payload is None else json.dumps(payload).encode(),
        headers={
            "Authorization": f"Token {token}",
            "Content-Type": "application/json",
            "Accept": "application/json",
        },
    )
    try:
        with urllib.request.urlopen(request, timeout=30) as response:
            return response.status, dict(response.headers), json.loads(response.read())
    except urllib.error.HTTPError as error:
        return error.code, dict(error.headers), json.loads(error.read() or b"null")


@pytest.fixture
def token(transactional_db, django_user_model) -> str:
    user = django_user_model.objects.create_user("writer", password="a-long-password")
    user.user_permissions.add(
        *Permission.objects.filter(codename__startswith="add_"),
        *Permission.objects.filter(codename__startswith="change_"),
    )
    return Token.objects.create(user=user).key


def test_every_create_answers_201_with_its_location_over_http(live_server, token):
    for resource, (_model, payload, _patch) in WRITES.items():
        url = f"{live_server.url}/api/{resource}/"
        status, headers, body = _send(url, "POST", token, payload)
        assert status == 201, (resource, body)
        location = headers["Location"]
        assert location == body["url"]
        assert location.endswith(f"/api/{resource}/{payload['slug']}/")
        # The Location names the record a later GET returns.
        status, _, fetched = _send(location, "GET", token)
        assert (status, fetched["slug"]) == (200, payload["slug"])
        # A retry (a client that saw an error) is told why, and nothing is doubled.
        status, _, retried = _send(url, "POST", token, payload)
        assert status == 400, (resource, retried)
        assert "slug" in retried["error"]["fields"], retried
        status, _, listing = _send(f"{url}?page_size=200", "GET", token)
        slugs = [row["slug"] for row in listing["results"]]
        assert slugs.count(payload["slug"]) == 1, resource


def test_updates_answer_over_http(live_server, token):
    model, payload, patch = WRITES["publications"]
    url = f"{live_server.url}/api/publications/"
    assert _send(url, "POST", token, payload)[0] == 201
    status, headers, body = _send(f"{url}{payload['slug']}/", "PATCH", token, patch)
    assert status == 200, body
    assert body["title"] == patch["title"]
    assert headers["ETag"]
