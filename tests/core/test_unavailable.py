"""A failing database answers 503 with Retry-After (a page for people, JSON for the
API), and the statement timeout turns a pathological query into that 503."""

import json
import time

import pytest
from django.db import OperationalError, connection
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


urlpatterns = [
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
