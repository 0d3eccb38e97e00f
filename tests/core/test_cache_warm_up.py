"""After a committed write, the unfiltered lists' facet counts are computed again in
the background, so the next visitor does not pay for counting the whole directory."""

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from core import cache as directory_cache
from tests import factories

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def warming(settings):
    settings.WARM_CACHE_AFTER_WRITE = True
    yield
    if directory_cache.last_warm_up is not None:
        directory_cache.last_warm_up.join(timeout=30)


def facet_queries(client, path: str) -> int:
    with CaptureQueriesContext(connection) as queries:
        assert client.get(path).status_code == 200
    return sum(
        "UNION ALL" in q["sql"] or '"search_facet' in q["sql"]
        for q in queries.captured_queries
    )


def test_a_write_is_followed_by_fresh_counts_in_the_cache(client, warming):
    factories.publication(year=2024)
    directory_cache.last_warm_up.join(timeout=30)
    # The list pages find their counts: no facet query runs.
    assert facet_queries(client, "/publications/") == 0
    assert facet_queries(client, "/people/") == 0
    body = client.get("/publications/").content.decode()
    assert "2024" in body

    # Another write: the new counts are there too (not the old version's).
    before = directory_cache.data_version()
    factories.publication(year=2019)
    directory_cache.last_warm_up.join(timeout=30)
    assert directory_cache.data_version() > before
    assert facet_queries(client, "/publications/") == 0
    assert "2019" in client.get("/publications/").content.decode()


def test_without_warming_the_next_visitor_counts(client, settings):
    settings.WARM_CACHE_AFTER_WRITE = False
    factories.publication(year=2024)
    assert facet_queries(client, "/publications/") == 1
