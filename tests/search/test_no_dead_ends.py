"""A search that finds nothing says what would help; labels are names, not slugs."""

import re

import pytest

from tests import factories

pytestmark = pytest.mark.django_db


def _text(response) -> str:
    html = response.content.decode()
    main = html[html.index("<main") : html.index("</main>")]
    return re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", main))


def test_the_site_search_corrects_a_misspelling_as_the_lists_do(client, demo_lab):
    text = _text(client.get("/search/", {"q": "quantizaton"}))
    assert "No results for “quantizaton”. Showing results for quantization" in text
    assert "Zhongzhu Zhou" in text
    people = _text(client.get("/people/", {"q": "quantizaton"}))
    assert "Showing results for quantization" in people


def test_the_site_search_lists_the_topics_named_like_the_query(client, demo_lab):
    html = client.get("/search/", {"q": "kv cache"}).content.decode()
    assert '<a class="chip" href="/topics/kv-cache-quantization/">' in html


def test_topics_are_searchable_in_the_api(client, demo_lab):
    found = client.get("/api/topics/", {"q": "kv"})
    assert found.status_code == 200
    assert [t["slug"] for t in found.json()["results"]] == ["kv-cache-quantization"]
    # By another name of the topic, in any case.
    found = client.get("/api/topics/", {"q": "low-BIT"}).json()["results"]
    assert [t["slug"] for t in found] == ["quantization"]
    assert client.get("/api/topics/", {"q": ""}).json()["count"] > 20
    assert client.get("/api/topics/", {"nope": "1"}).status_code == 400


def test_a_query_in_another_script_is_told_what_would_help(client, demo_lab):
    for path in ("/search/", "/people/", "/publications/"):
        text = _text(client.get(path, {"q": "稀疏注意力"}))
        assert "not their meaning" in text, path
        assert "English name of a topic" in text, path
        # No filter is set, so none is to be removed.
        assert "filter" not in text.split("No ")[-1], path


def test_advice_names_a_filter_only_when_one_is_set(client, demo_lab):
    text = _text(client.get("/publications/", {"q": "zzzqqq"}))
    assert "Check the spelling" in text
    assert "Remove a filter" not in text
    text = _text(client.get("/publications/", {"q": "zzzqqq", "year": "2024"}))
    assert "Remove a filter to widen the search." in text
    assert "Browse the topics" in text


def test_a_venue_without_a_short_name_is_shown_by_its_name(client, db):
    venue = factories.venue(
        name="Journal of Machine Learning Research",
        short_name="",
        slug="journal-of-machine-learning-research",
    )
    member = factories.person(slug="ada")
    factories.publication(venue=venue, authors=[member])
    for path, facet in (("/api/publications/", "venue"), ("/api/people/", "venue")):
        options = client.get(path, {"facets": facet}).json()["facets"][facet]
        assert [o["label"] for o in options] == [
            "Journal of Machine Learning Research"
        ], path
    chips = client.get("/publications/", {"venue": venue.slug}).context["chips"]
    assert [c["label"] for c in chips] == [
        "Venue: Journal of Machine Learning Research"
    ]


def test_a_selected_topic_without_results_is_shown_by_its_name(client, db):
    factories.topic(name="AI for science", slug="ai-for-science")
    factories.publication(title="On caches")
    response = client.get("/publications/", {"topic": "ai-for-science"})
    assert [c["label"] for c in response.context["chips"]] == ["Topic: AI for science"]
    facets = client.get(
        "/api/publications/", {"topic": "ai-for-science", "facets": "topic"}
    ).json()["facets"]
    assert facets["topic"] == [
        {"value": "ai-for-science", "label": "AI for science", "count": 0}
    ]


def test_the_api_corrects_a_misspelling_and_says_so(client, demo_lab):
    body = client.get("/api/publications/", {"q": "quantizaton", "facets": "year"})
    body = body.json()
    assert body["corrected_from"] == "quantizaton" and body["q"] == "quantization"
    assert body["count"] == len(body["results"]) > 0
    assert sum(o["count"] for o in body["facets"]["year"]) == body["count"]
    people = client.get("/api/people/", {"q": "quantizaton"}).json()
    assert [p["slug"] for p in people["results"]] == ["zhongzhu-zhou"]
    # A query that finds something is left as it is, and says nothing more.
    exact = client.get("/api/publications/", {"q": "quantization"}).json()
    assert "corrected_from" not in exact and exact["count"] == body["count"]
