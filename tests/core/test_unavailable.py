"""A failing database answers 503 with Retry-After (a page for people, JSON for the
API), and the statement timeout turns a pathological query into that 503."""

import json
import time
from types import MethodType

import pytest
from django.db import OperationalError, connection, connections
from django.http import HttpResponse
from django.urls import path

from core.statement_timeout import limit_statements, unlimit_statements
from directory.views import server_error

pytestmark = [pytest.mark.django_db, pytest.mark.urls("tests.core.test_unavailable")]


def unreachable(request):
    raise OperationalError('connection to server at "127.0.0.1" failed: refused')


def slow(request):
    with connection.cursor() as cursor:
        if connection.vendor == "postgresql":
            cursor.execute("SELECT pg_sleep(20)")
        else:
            cursor.execute(
                "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c "
                "WHERE x < 1000000000) SELECT count(*) FROM c"
            )
    return HttpResponse("done")


def quick(request):
    with connection.cursor() as cursor:
        cursor.execute("SELECT 1")
    return HttpResponse("quick")


def write_scratch(request):
    with connections["scratch"].cursor() as cursor:
        cursor.execute("INSERT INTO note (text) VALUES ('written')")
    return HttpResponse("written")


urlpatterns = [
    path("write/", write_scratch),
    path("unreachable/", unreachable),
    path("api/unreachable/", unreachable),
    path("slow/", slow),
    path("api/slow/", slow),
    path("quick/", quick),
]


def assert_page(response) -> None:
    assert response.status_code == 503
    assert response["Retry-After"] == "30"
    assert response["Content-Type"].startswith("text/html")
    body = response.content.decode()
    assert "<h1>Temporarily unavailable</h1>" in body
    assert "Traceback" not in body and "127.0.0.1" not in body


def assert_json(response) -> None:
    assert response.status_code == 503
    assert response["Retry-After"] == "30"
    assert json.loads(response.content) == {
        "error": {
            "status": 503,
            "code": "service_unavailable",
            "message": "The directory cannot reach its database just now; "
            "try again shortly.",
            "retry_after": 30,
        }
    }


def test_an_unreachable_database_is_a_503_page_for_people(client):
    assert_page(client.get("/unreachable/"))


def test_an_unreachable_database_is_a_503_in_the_api_error_shape(client):
    assert_json(client.get("/api/unreachable/"))


def test_a_database_error_outside_a_view_is_a_503_too(rf):
    for url, check in [("/people/", assert_page), ("/api/people/", assert_json)]:
        try:
            raise OperationalError("server closed the connection unexpectedly")
        except OperationalError:
            check(server_error(rf.get(url)))


def test_other_errors_stay_500(rf):
    try:
        raise ValueError("a bug")
    except ValueError:
        assert server_error(rf.get("/api/people/")).status_code == 500


@pytest.fixture
def statement_timeout():
    limit_statements(300)
    yield
    unlimit_statements()


# Outside a test transaction, as requests run (autocommit): on PostgreSQL a
# cancelled statement aborts the transaction around it.
@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize(
    "url, check", [("/slow/", assert_page), ("/api/slow/", assert_json)]
)
def test_a_statement_past_the_timeout_is_stopped_with_a_503(
    client, statement_timeout, url, check
):
    started = time.monotonic()
    response = client.get(url)
    assert time.monotonic() - started < 5
    check(response)
    # The connection is still usable afterwards.
    assert client.get("/quick/").content == b"quick"


def test_without_the_limit_quick_statements_are_untouched(client, statement_timeout):
    time.sleep(0.5)  # longer than the timeout since the last statement
    assert client.get("/quick/").content == b"quick"


@pytest.mark.urls("directory.urls")
def test_the_api_schema_documents_the_503(client):
    schema = client.get("/api/schema/", {"format": "json"}).json()
    for endpoint in ["/api/people/", "/api/people/{slug}/", "/api/publications/"]:
        assert "503" in schema["paths"][endpoint]["get"]["responses"], endpoint


def _connect_if_closed(wrapper) -> None:
    if wrapper.connection is None:
        with wrapper.wrap_database_errors:
            wrapper.connect()


@pytest.fixture
def scratch(tmp_path):
    """A file database under the alias "scratch", kept open between requests."""
    connections.settings["scratch"] = {
        **connections.settings["default"],
        "NAME": str(tmp_path / "scratch.sqlite3"),
        "ENGINE": "django.db.backends.sqlite3",
        "CONN_MAX_AGE": 60,
        "OPTIONS": {},
        "TEST": {},
    }
    wrapper = connections["scratch"]
    # A test case refuses aliases it was not told of; this one has no test copy.
    wrapper.ensure_connection = MethodType(_connect_if_closed, wrapper)
    with connections["scratch"].cursor() as cursor:
        cursor.execute("CREATE TABLE note (text TEXT)")
    yield connections["scratch"]
    connections["scratch"].close()
    del connections["scratch"]
    del connections.settings["scratch"]


def test_a_write_succeeds_as_soon_as_the_database_is_writable_again(client, scratch):
    # As a connection opened while the file was read-only (a full or read-only
    # disk, a wrong owner) stays read-only after the file is writable again:
    # PRAGMA query_only, since the tests may run as root, which ignores modes.
    with scratch.cursor() as cursor:
        cursor.execute("PRAGMA query_only = ON")
    assert_page(client.get("/write/"))
    assert client.get("/write/").content == b"written"
    with scratch.cursor() as cursor:
        cursor.execute("SELECT count(*) FROM note")
        assert cursor.fetchone() == (1,)
