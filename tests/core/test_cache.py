"""Every write to the directory invalidates what the cache remembers of it: saves
and deletes through their signals, bulk updates and bulk writers too."""

import io
import os
import re
import subprocess
import sys
import time
from pathlib import Path

import pytest
from django.conf import settings
from django.core.management import call_command
from django.db import connection, transaction
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from core.cache import data_version, remember
from core.models import Topic
from events.models import Event
from people.models import Person
from publications.models import Publication
from search.indexing import index
from tests import factories

pytestmark = pytest.mark.django_db


def status_counts(client) -> dict[str, int]:
    response = client.get("/api/people/", {"facets": "status"})
    assert response.status_code == 200
    return {o["value"]: o["count"] for o in response.json()["facets"]["status"]}


def test_a_bulk_admin_action_shows_at_once_on_remembered_pages(
    client, admin_client_logged_in
):
    person = factories.person(status=Person.Status.CURRENT)
    assert status_counts(client) == {"current": 1}
    response = admin_client_logged_in.post(
        reverse("admin:people_person_changelist"),
        {"action": "mark_alumni", "_selected_action": [person.pk]},
    )
    assert response.status_code == 302
    assert status_counts(client) == {"alumni": 1}


@pytest.mark.parametrize(
    ("model", "build"),
    [
        (Person, factories.person),
        (Publication, factories.publication),
        (Event, factories.event),
        (Topic, factories.topic),
    ],
)
def test_a_bulk_update_starts_a_new_data_version(model, build):
    record = build()
    before = data_version()
    assert model.objects.filter(pk=record.pk + 1000).update(slug="nothing") == 0
    assert data_version() == before  # nothing matched, nothing to forget
    model.objects.filter(pk=record.pk).update(slug="renamed")
    assert data_version() > before


def test_a_read_racing_a_bulk_write_is_not_served_after_its_commit(
    django_capture_on_commit_callbacks,
):
    paper = factories.publication(title="Before")
    with django_capture_on_commit_callbacks(execute=True), transaction.atomic():
        Publication.objects.bulk_create(
            [Publication(title="Bulk", slug="bulk", year=2024)]
        )
        index("publication", Publication.objects.values_list("pk", flat=True))
        # Another request reads now: it cannot see the uncommitted rows, and keeps
        # what it saw under the version the bulk write has just started.
        assert remember(["race", paper.pk], lambda: "without the new paper")
    assert remember(["race", paper.pk], lambda: "with it") == "with it"


def facets_counted(client, path: str, params: dict) -> list[str]:
    """The facets whose counts the request had to query (not found cached)."""
    with CaptureQueriesContext(connection) as queries:
        assert client.get(path, params).status_code == 200
    names = []
    for query in queries.captured_queries:
        sql = query["sql"]
        # Counted through the joins, or read from the counts kept on write.
        names += re.findall(r"SELECT '(\w+)' AS \"facet\"", sql)
        for listed in re.findall(r'"search_facet\w+"\."facet" IN \(([^)]*)\)', sql):
            names += re.findall(r"'(\w+)'", listed)
    return sorted(set(names))


def test_pages_and_api_requests_share_each_facets_counts(client):
    factories.publication(year=2024, venue=factories.venue())
    year = {"year": "2024"}
    assert facets_counted(client, "/api/publications/", {"facets": "year", **year}) == [
        "year"
    ]
    # The page counts only the facets not counted yet, with the same filters.
    page = facets_counted(client, "/publications/", year)
    assert page == ["author", "status", "topic", "venue"]
    assert (
        facets_counted(client, "/api/publications/", {"facets": "venue,topic", **year})
        == []
    )
    # Other filters are other counts.
    assert facets_counted(client, "/api/publications/", {"facets": "year"}) == ["year"]


def test_the_background_recount_serves_pages_and_api_lists_alike(client):
    from search.filters import warm_default_facets

    factories.publication(year=2024, venue=factories.venue())
    warm_default_facets()
    assert facets_counted(client, "/publications/", {}) == []
    assert facets_counted(client, "/people/", {}) == []
    api = {"facets": "year,venue,topic", "page_size": 50}
    assert facets_counted(client, "/api/publications/", api) == []
    assert facets_counted(client, "/api/people/", {"facets": "topic,role"}) == []


WORK = str(Path(__file__).parents[1] / "sources" / "samples" / "openalex_work.json")
BASE_DIR = Path(__file__).resolve().parents[2]


def _paper_from_openalex(**fields) -> Publication:
    return factories.publication(
        title="Sparse Attention for Long Documents",
        doi="10.1145/3580305.3599999",
        year=2023,
        cited_by_count=1,
        **fields,
    )


def _counts(client) -> dict[str, int]:
    rows = client.get("/api/publications/").json()["results"]
    return {row["title"]: row["cited_by_count"] for row in rows}


def test_refreshed_citation_counts_change_the_etag_and_the_cached_list(client):
    pub = _paper_from_openalex()
    url = f"/api/publications/{pub.slug}/"
    before = client.get(url)
    assert _counts(client) == {pub.title: 1}
    call_command("import_openalex", WORK, stdout=io.StringIO())
    assert Publication.objects.get(pk=pub.pk).cited_by_count == 42
    after = client.get(url)
    assert after.json()["cited_by_count"] == 42
    assert after["ETag"] != before["ETag"]
    assert after["Last-Modified"] >= before["Last-Modified"]
    assert _counts(client) == {pub.title: 42}


def _manage(*args: str, **env: str) -> subprocess.CompletedProcess:
    # Another process, as a command or a second web worker is: about 2 s to start.
    return subprocess.run(
        [sys.executable, "manage.py", *args],
        cwd=BASE_DIR,
        env={
            **os.environ,
            "DJANGO_SETTINGS_MODULE": "tests.settings",
            "DATA_VERSION_FILE": str(settings.DATA_VERSION_FILE),
            **env,
        },
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )


def test_a_write_in_another_process_starts_a_new_version_here(tmp_path):
    before = data_version()
    assert remember(["probe"], lambda: "old") == "old"
    _manage(
        "shell",
        "-c",
        "from core.cache import invalidate; invalidate()",
        DATABASE_URL=f"sqlite:///{tmp_path / 'elsewhere.sqlite3'}",
    )
    assert data_version() > before
    assert remember(["probe"], lambda: "new") == "new"


@pytest.mark.django_db(transaction=True)
def test_a_command_in_another_process_reaches_the_cached_api_list(client):
    if connection.vendor != "postgresql":
        pytest.skip("another process cannot open SQLite's in-memory test database")
    pub = _paper_from_openalex()
    assert _counts(client) == {pub.title: 1}
    db = connection.settings_dict
    url = f"postgres://{db['USER']}@{db['HOST']}:{db['PORT']}/{db['NAME']}"
    _manage("import_openalex", WORK, DATABASE_URL=url)
    assert _counts(client) == {pub.title: 42}


def test_the_version_check_costs_no_query_and_microseconds(
    django_assert_num_queries,
):
    data_version()
    with django_assert_num_queries(0):
        data_version()
    start = time.perf_counter()
    for _ in range(1000):
        data_version()
    assert (time.perf_counter() - start) / 1000 < 0.001


def test_a_shared_version_file_that_is_reset_or_unwritable_never_fails_a_request(
    settings, tmp_path, caplog
):
    from core import cache as core_cache

    settings.DATA_VERSION_FILE = tmp_path / "data-version"
    core_cache._advance_shared()
    core_cache._advance_shared()
    assert core_cache._shared_version() == 2
    before = data_version()
    # The file replaced by an older one (a restored backup of var/): every cached
    # result is of an older version from then on.
    settings.DATA_VERSION_FILE.write_bytes(b"1")
    core_cache._shared_version()
    assert data_version() > before
    # A file that cannot be written: the write goes on, and says so in the log.
    settings.DATA_VERSION_FILE = Path("/dev/null/data-version")
    core_cache._advance_shared()
    assert "could not be shared" in caplog.text
    # No file: the cache's counter alone.
    settings.DATA_VERSION_FILE = None
    core_cache._advance_shared()
    assert core_cache._shared_version() == 0
