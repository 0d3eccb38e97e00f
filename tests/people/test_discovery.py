"""The similar researchers section, the connections page and their API."""

import pytest

from people.similarity import compute_similar


@pytest.fixture
def computed(lab):
    compute_similar()
    return lab


def test_the_profile_lists_similar_researchers_with_reasons(
    client, computed, django_assert_max_num_queries
):
    # The profile's own (with its pictures, citations, selected works and where
    # the sources of its papers disagree), and the stale check, the list, its
    # topics and places.
    # and the group record (once per data version); the chart's year counts: every
    # paper and the member's own, and their values (search.facet_counts).
    with django_assert_max_num_queries(30):
        response = client.get("/people/ana/")
    html = response.content.decode()
    section = html[html.index('id="similar"') :]
    assert '<h2 id="similar-h">Similar researchers</h2>' in section
    assert (
        "3 shared papers · shared topics: Quantization, KV cache"
        " · both at Rice University" in section
    )
    assert 'href="/people/ana/connections/bo/"' in section
    assert section.index('href="/people/bo/"') < section.index('href="/people/cy/"')


def test_a_cached_profile_reads_no_similar_rows(
    client, computed, django_assert_num_queries
):
    client.get("/people/di/")
    with django_assert_num_queries(1):  # the member: the section is cached
        response = client.get("/people/di/")
    assert 'id="similar"' in response.content.decode()


def test_a_member_alike_to_no_one_has_no_section(client, db):
    from tests import factories

    factories.person(slug="alone")
    response = client.get("/people/alone/")
    assert 'id="similar"' not in response.content.decode()


def test_the_connections_page(client, computed, django_assert_max_num_queries):
    with django_assert_max_num_queries(15):
        response = client.get("/people/ana/connections/di/")
    assert response.status_code == 200
    html = response.content.decode()
    path = html[html.index('id="path"') : html.index('id="shared-papers"')]
    assert [name in path for name in ('href="/people/bo/"', 'href="/people/cy/"')] == [
        True,
        True,
    ]
    assert "They have no paper together." in html
    assert "Elsewhere Institute" not in html  # ana was never there


def test_the_connections_page_lists_shared_papers_topics_and_places(client, computed):
    html = client.get("/people/ana/connections/bo/").content.decode()
    papers = html[html.index('id="shared-papers"') : html.index('id="shared-topics"')]
    assert papers.count('class="publication"') == 3
    topics = html[html.index('id="shared-topics"') : html.index('id="shared-places"')]
    assert "KV cache" in topics and "Quantization" in topics
    assert "Efficient machine learning" not in topics
    assert "Rice University</strong>: both there now" in html


@pytest.mark.parametrize(
    "url",
    [
        "/people/ana/connections/nobody/",
        "/people/nobody/connections/ana/",
        "/people/ana/connections/ana/",
        "/api/people/ana/connections/nobody/",
        "/api/people/ana/connections/ana/",
        "/api/people/nobody/similar/",
    ],
)
def test_unknown_or_identical_members_are_not_found(client, computed, url):
    response = client.get(url, HTTP_ACCEPT="application/json")
    assert response.status_code == 404
    if url.startswith("/api/"):
        assert response.json()["error"]["status"] == 404


def test_the_similar_api(client, computed, django_assert_max_num_queries):
    with django_assert_max_num_queries(5):
        response = client.get("/api/people/ana/similar/")
    assert response.status_code == 200
    first = response.json()[0]
    assert first["rank"] == 1
    assert first["person"]["slug"] == "bo"
    assert first["reason"] == (
        "3 shared papers · shared topics: Quantization, KV cache"
        " · both at Rice University"
    )
    assert first["reasons"]["shared_papers"] == 3
    assert [t["slug"] for t in first["reasons"]["topics"]] == ["quant", "kv"]
    assert [o["slug"] for o in first["reasons"]["organizations"]] == ["rice"]
    assert [o["slug"] for o in first["reasons"]["organizations_now"]] == ["rice"]
    assert first["connections_url"].endswith("/api/people/ana/connections/bo/")


def test_the_connections_api(client, computed, django_assert_max_num_queries):
    with django_assert_max_num_queries(13):
        response = client.get("/api/people/ana/connections/di/")
    assert response.status_code == 200
    data = response.json()
    assert [(s["person"]["slug"], s["other"]["slug"]) for s in data["path"]] == [
        ("ana", "bo"),
        ("bo", "cy"),
        ("cy", "di"),
    ]
    assert data["path"][0]["paper_count"] == 3
    assert data["shared_paper_count"] == 0
    assert data["organizations"] == []


def test_the_endpoints_are_in_the_openapi_schema(client, db):
    schema = client.get("/api/schema/?format=json").json()
    assert "/api/people/{slug}/similar/" in schema["paths"]
    assert "/api/people/{slug}/connections/{other}/" in schema["paths"]
    assert "SimilarPerson" in schema["components"]["schemas"]
    assert "Connection" in schema["components"]["schemas"]
