import json
import socket
import time

import pytest
import schemathesis
from django.contrib.auth.models import Permission
from django.core.cache import cache
from django.core.signals import request_finished, request_started
from django.db import close_old_connections
from hypothesis import given, settings
from openapi_spec_validator import validate
from rest_framework.authtoken.models import Token
from rest_framework.test import APIClient
from schemathesis.specs.openapi.checks import positive_data_acceptance

from tests import factories
from tests.fuzzing import GENERATED_REQUESTS
from tests.processes import django_process

RESOURCES = ["people", "publications", "events", "topics", "organizations", "venues"]


@pytest.fixture
def api():
    return APIClient()


def _token_client(django_user_model, *, perms=(), staff=False) -> APIClient:
    user = django_user_model.objects.create_user(
        f"user{len(perms)}{staff}", password="a-long-test-password", is_staff=staff
    )
    for codename in perms:
        user.user_permissions.add(Permission.objects.get(codename=codename))
    client = APIClient()
    client.credentials(
        HTTP_AUTHORIZATION=f"Token {Token.objects.create(user=user).key}"
    )
    return client


def test_root_lists_every_resource(api, db):
    data = api.get("/api/").json()
    assert sorted(data) == sorted(RESOURCES)


@pytest.mark.parametrize("resource", RESOURCES)
def test_every_list_and_detail_answers(api, demo_lab, resource):
    listing = api.get(f"/api/{resource}/")
    assert listing.status_code == 200
    body = listing.json()
    assert {"count", "next", "previous", "results"} <= set(body)
    first = body["results"][0]
    detail = api.get(first["url"])
    assert detail.status_code == 200
    assert detail.json()["slug"] == first["slug"]


def test_schema_is_valid_openapi(api, db):
    response = api.get("/api/schema/", {"format": "json"})
    schema = json.loads(response.content)
    validate(schema)
    paths = schema["paths"]
    for resource in RESOURCES:
        assert f"/api/{resource}/" in paths and f"/api/{resource}/{{slug}}/" in paths
    parameters = {p["name"]: p for p in paths["/api/people/"]["get"]["parameters"]}
    assert {
        "q",
        "topic",
        "role",
        "organization",
        "status",
        "facets",
        "page_size",
    } <= set(parameters)
    assert "phd_student" in parameters["role"]["schema"]["items"]["enum"]
    assert parameters["facets"]["schema"]["items"]["enum"] == [
        "topic",
        "role",
        "organization",
        "status",
        "venue",
    ]
    assert {"400", "404", "429"} <= set(paths["/api/people/"]["get"]["responses"])
    assert {"401", "403"} <= set(paths["/api/people/"]["post"]["responses"])


@pytest.fixture(scope="module")
def schema(django_db_setup, django_db_blocker) -> dict:
    with django_db_blocker.unblock():
        response = APIClient().get("/api/schema/", {"format": "json"})
    return json.loads(response.content)


def _docstrings() -> set[str]:
    """Every docstring of the API's view classes and their methods."""
    import inspect

    from directory.api_router import router

    texts = set()
    for _prefix, viewset, _basename in router.registry:
        for cls in viewset.__mro__:
            if cls.__module__.split(".")[0] in ("rest_framework", "builtins"):
                continue
            texts.add(inspect.cleandoc(cls.__doc__ or ""))
            for member in vars(cls).values():
                if callable(member) and member.__doc__:
                    texts.add(inspect.cleandoc(member.__doc__))
    return texts - {""}


def test_each_operation_says_what_it_does(schema):
    internal = _docstrings()
    for path, operations in schema["paths"].items():
        descriptions = [op.get("description", "") for op in operations.values()]
        summaries = [op.get("summary", "") for op in operations.values()]
        assert all(descriptions), path
        # Not one text copied across the verbs of a path.
        assert len(set(descriptions)) == len(descriptions), path
        assert len(set(summaries)) == len(summaries), path
        for text in descriptions:
            assert not any(doc and doc in text for doc in internal), (path, text)
    assert schema["paths"]["/api/topics/"]["post"]["summary"] == "Add a topic"
    assert "409" in schema["paths"]["/api/venues/{slug}/"]["delete"]["description"]
    assert {tag["name"] for tag in schema["tags"]} == set(RESOURCES)


@pytest.mark.parametrize(
    ("path", "name"),
    [
        ("/api/publications/", "topic"),
        ("/api/publications/", "venue"),
        ("/api/publications/", "author"),
        ("/api/people/", "topic"),
        ("/api/people/", "venue"),
        ("/api/events/", "person"),
    ],
)
def test_repeatable_filters_are_arrays_of_slugs(schema, path, name):
    parameters = {p["name"]: p for p in schema["paths"][path]["get"]["parameters"]}
    assert parameters[name]["schema"] == {
        "type": "array",
        "items": {"type": "string", "format": "slug"},
    }


@pytest.mark.parametrize("resource", RESOURCES)
def test_ordering_is_documented_and_an_unknown_one_refused(api, db, schema, resource):
    parameters = {
        p["name"]: p for p in schema["paths"][f"/api/{resource}/"]["get"]["parameters"]
    }
    choices = parameters["ordering"]["schema"]["items"]["enum"]
    assert choices and all(f"-{c}" in choices for c in choices if c[0] != "-")
    assert api.get(f"/api/{resource}/", {"ordering": choices[-1]}).status_code == 200
    refused = api.get(f"/api/{resource}/", {"ordering": f"{choices[0]},bogus"})
    assert refused.status_code == 400
    assert "bogus" in refused.json()["error"]["fields"]["ordering"][0]


def test_ordering_sorts_every_list(api, db):
    for name in ("b", "a", "c"):
        factories.topic(name=name.upper() * 3)
    names = [
        t["name"]
        for t in api.get("/api/topics/", {"ordering": "-name"}).json()["results"]
    ]
    assert names == sorted(names, reverse=True)


def test_interactive_docs_need_no_cdn(client, db):
    html = client.get("/api/docs/").content.decode()
    assert "swagger-ui" in html
    assert "cdn." not in html and "unpkg" not in html and "jsdelivr" not in html
    assert client.get("/api/redoc/").status_code == 200


def test_errors_share_one_json_shape(api, db):
    bad = api.get("/api/publications/", {"year": "abc"})
    assert bad.status_code == 400
    assert bad.json()["error"]["fields"]["year"]
    missing = api.get("/api/people/nobody/")
    assert missing.status_code == 404
    assert missing.json() == {
        "error": {"status": 404, "code": "not_found", "message": "Not found."}
    }
    nowhere = api.get("/api/no-such-resource/")
    assert nowhere.status_code == 404 and nowhere.json()["error"]["status"] == 404
    anonymous = api.post("/api/topics/", {"name": "X", "slug": "x"}, format="json")
    assert anonymous.status_code == 401
    assert anonymous.json()["error"]["code"] == "not_authenticated"


def test_method_not_allowed_is_json(api, db, django_user_model):
    factories.topic(slug="ml")
    client = _token_client(django_user_model, perms=["add_topic", "change_topic"])
    response = client.post("/api/topics/ml/", {}, format="json")
    assert response.status_code == 405
    assert response.json()["error"]["code"] == "method_not_allowed"


@pytest.mark.parametrize(
    ("resource", "kind"), [("organizations", "company"), ("venues", "preprint")]
)
def test_kind_filters_narrow_simple_lists(api, demo_lab, resource, kind):
    everything = api.get(f"/api/{resource}/", {"page_size": 200}).json()
    narrowed = api.get(f"/api/{resource}/", {"kind": kind, "page_size": 200}).json()
    assert 0 < narrowed["count"] < everything["count"]
    assert api.get(f"/api/{resource}/", {"kind": "castle"}).status_code == 400


def test_schema_gives_examples(api, db):
    schema = json.loads(api.get("/api/schema/", {"format": "json"}).content)
    detail = schema["paths"]["/api/publications/{slug}/"]["get"]["responses"]["200"]
    assert detail["content"]["application/json"]["examples"]
    listing = schema["paths"]["/api/people/"]["get"]["responses"]
    assert listing["400"]["content"]["application/json"]["examples"]


@pytest.mark.parametrize(
    "params",
    [
        {"toppic": "quantization"},
        {"year": "20x5"},
        {"year": "3000"},
        {"topic": "no-such-topic"},
        {"role": "emperor"},
        {"facets": "topic,nope"},
        {"page_size": "0"},
        {"page_size": "many"},
        {"sort": "chaos"},
    ],
)
def test_bad_parameters_are_a_400_never_ignored(api, db, params):
    url = "/api/people/" if "role" in params else "/api/publications/"
    response = api.get(url, params)
    assert response.status_code == 400, response.content
    assert response.json()["error"]["fields"]


def test_page_size_is_capped(api, db):
    for _ in range(3):
        factories.topic()
    response = api.get("/api/topics/", {"page_size": "100000"})
    assert response.status_code == 200


def test_a_page_past_the_end_is_a_404(api, demo_lab):
    assert api.get("/api/publications/", {"page": "99"}).status_code == 404


def test_conditional_get_answers_304(api, demo_lab):
    first = api.get("/api/publications/duoattention/")
    etag = first["ETag"]
    assert first.has_header("Last-Modified")
    again = api.get("/api/publications/duoattention/", HTTP_IF_NONE_MATCH=etag)
    assert again.status_code == 304 and again.content == b""
    since = api.get(
        "/api/publications/duoattention/", HTTP_IF_MODIFIED_SINCE=first["Last-Modified"]
    )
    assert since.status_code == 304
    listing = api.get("/api/people/")
    assert (
        api.get("/api/people/", HTTP_IF_NONE_MATCH=listing["ETag"]).status_code == 304
    )


def test_throttling_answers_429_with_retry_after(api, db, settings):
    cache.clear()
    settings.REST_FRAMEWORK = {
        **settings.REST_FRAMEWORK,
        "DEFAULT_THROTTLE_RATES": {"anon": "3/minute", "user": "3/minute"},
    }
    statuses = [api.get("/api/topics/").status_code for _ in range(4)]
    assert statuses == [200, 200, 200, 429]
    blocked = api.get("/api/topics/")
    assert int(blocked["Retry-After"]) > 0
    assert blocked.json()["error"]["retry_after"] > 0
    cache.clear()


def test_cors_opens_reads_to_configured_origins(client, db, settings):
    settings.CORS_ALLOWED_ORIGINS = ["https://dept.example.org"]
    response = client.get("/api/people/", HTTP_ORIGIN="https://dept.example.org")
    assert response["Access-Control-Allow-Origin"] == "https://dept.example.org"
    other = client.get("/api/people/", HTTP_ORIGIN="https://evil.example")
    assert not other.has_header("Access-Control-Allow-Origin")
    page = client.get("/people/", HTTP_ORIGIN="https://dept.example.org")
    assert not page.has_header("Access-Control-Allow-Origin")
    preflight = client.options(
        "/api/people/",
        HTTP_ORIGIN="https://dept.example.org",
        HTTP_ACCESS_CONTROL_REQUEST_METHOD="DELETE",
    )
    assert "DELETE" not in preflight.get("Access-Control-Allow-Methods", "")


WRITES = {
    # resource: (model codename suffix, create payload, patch payload)
    "topics": (
        "topic",
        {"name": "Compilers", "slug": "compilers"},
        {"name": "Compiling"},
    ),
    "organizations": (
        "organization",
        {"name": "ETH Zürich", "slug": "eth", "kind": "university"},
        {"location": "Zürich"},
    ),
    "venues": (
        "venue",
        {"name": "OSDI", "slug": "osdi", "kind": "conference"},
        {"short_name": "OSDI"},
    ),
    "people": (
        "person",
        {
            "given_name": "Grace",
            "family_name": "Hopper",
            "display_name": "Grace Hopper",
            "slug": "grace",
            "role": "faculty",
        },
        {"headline": "Compilers"},
    ),
    "publications": (
        "publication",
        {
            "title": "A paper",
            "slug": "a-paper",
            "year": 2024,
            "authors": [{"name": "A. Author"}, {"name": "B. Author"}],
        },
        {"title": "A better paper"},
    ),
    "events": (
        "event",
        {"title": "A talk", "slug": "a-talk", "kind": "talk", "date": "2026-05-01"},
        {"host": "MIT"},
    ),
}


@pytest.mark.parametrize("resource", WRITES)
def test_write_permission_matrix(db, django_user_model, resource):
    model, payload, patch = WRITES[resource]
    anonymous = APIClient()
    plain = _token_client(django_user_model)
    staff_without = _token_client(django_user_model, staff=True)
    allowed = _token_client(
        django_user_model, perms=[f"add_{model}", f"change_{model}", f"delete_{model}"]
    )
    url = f"/api/{resource}/"
    detail = f"{url}{payload['slug']}/"
    for client, expected in [(anonymous, 401), (plain, 403), (staff_without, 403)]:
        assert client.post(url, payload, format="json").status_code == expected
    created = allowed.post(url, payload, format="json")
    assert created.status_code == 201, created.content
    assert created["Location"].endswith(detail)
    for client, expected in [(anonymous, 401), (plain, 403), (staff_without, 403)]:
        assert client.patch(detail, patch, format="json").status_code == expected
        assert client.put(detail, payload, format="json").status_code == expected
        assert client.delete(detail).status_code == expected
    assert allowed.patch(detail, patch, format="json").status_code == 200
    assert allowed.put(detail, payload, format="json").status_code == 200
    assert allowed.delete(detail).status_code == 204
    assert APIClient().get(detail).status_code == 404


def test_session_writes_need_csrf(db, django_user_model):
    user = django_user_model.objects.create_superuser(
        "root", "r@example.org", "a-long-pw-123"
    )
    client = APIClient(enforce_csrf_checks=True)
    client.force_login(user)
    response = client.post("/api/topics/", {"name": "X", "slug": "x"}, format="json")
    assert response.status_code == 403
    assert "CSRF" in response.json()["error"]["message"]
    assert user.is_superuser


@pytest.mark.slow
def test_api_conforms_to_its_schema(db):
    """Generated requests against every operation: no 5xx, answers as documented.
    Slow (12–15 s): schemathesis generates and sends cases for all 36 operations."""
    from directory.wsgi import application

    factories.person(slug="ada")
    factories.publication(slug="paper", authors=["X"])
    factories.topic(slug="ml")
    # As Django's test client does: the test's transaction must outlive requests.
    request_started.disconnect(close_old_connections)
    request_finished.disconnect(close_old_connections)
    try:
        schema = schemathesis.openapi.from_wsgi("/api/schema/?format=json", application)
        operations = [result.ok() for result in schema.get_all_operations()]
        assert len(operations) >= 30
        for operation in operations:
            _check_operation(operation)
    finally:
        request_started.connect(close_old_connections)
        request_finished.connect(close_old_connections)


def _check_operation(operation) -> None:
    @given(case=operation.as_strategy())
    @settings(GENERATED_REQUESTS, max_examples=EXAMPLES)
    def check(case):
        # Filter values are slugs of records that must exist, which a schema
        # cannot say: an unknown one is rightly a 400, not a failure.
        case.call_and_validate(excluded_checks=[positive_data_acceptance])

    check()


EXAMPLES = 8


@pytest.fixture
def shared_throttle(settings, tmp_path):
    """Three anonymous calls a minute, counted in files as production does."""
    settings.CACHES = {
        **settings.CACHES,
        "throttle": {
            "BACKEND": "django.core.cache.backends.filebased.FileBasedCache",
            "LOCATION": str(tmp_path / "throttle"),
        },
    }
    settings.REST_FRAMEWORK = {
        **settings.REST_FRAMEWORK,
        "DEFAULT_THROTTLE_RATES": {"anon": "3/minute", "user": "3/minute"},
    }
    return tmp_path / "throttle"


def test_the_throttle_counts_the_calls_of_every_process(api, db, shared_throttle):
    assert [api.get("/api/").status_code for _ in range(2)] == [200, 200]
    # Another worker process of the same site, as gunicorn runs several.
    other = django_process(
        "from django.test import Client; "
        "print([Client().get('/api/').status_code for _ in range(2)])",
        DJANGO_SETTINGS_MODULE="directory.settings",
        SECRET_KEY="throttle-test-0123456789abcdefghijklmnopqrstuvwxyz",
        DEBUG="0",
        SECURE_SSL_REDIRECT="0",
        API_ANON_RATE="3/minute",
        THROTTLE_CACHE_DIR=str(shared_throttle),
    )
    assert other.stdout.strip() == "[200, 429]", other.stderr[-2000:]


def test_with_its_store_down_the_throttle_refuses_with_503_and_retry_after(
    api, db, settings
):
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        closed = probe.getsockname()[1]
    settings.CACHES = {
        **settings.CACHES,
        "throttle": {
            "BACKEND": "django.core.cache.backends.redis.RedisCache",
            "LOCATION": f"redis://127.0.0.1:{closed}/0",
            "OPTIONS": {"socket_connect_timeout": 0.05, "socket_timeout": 0.05},
        },
    }
    started = time.monotonic()
    response = api.get("/api/topics/")
    assert time.monotonic() - started < 1
    assert response.status_code == 503
    assert int(response["Retry-After"]) > 0
    error = response.json()["error"]
    assert error["code"] == "throttle_unavailable"
    assert error["retry_after"] == int(response["Retry-After"])
    # Pages are not throttled: the site itself still answers.
    assert api.get("/people/").status_code == 200
