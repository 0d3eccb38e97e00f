"""Every write to the directory invalidates what the cache remembers of it: saves
and deletes through their signals, bulk updates and bulk writers too."""

import re

import pytest
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
