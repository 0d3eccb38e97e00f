import re

from core.models import Topic
from tests import factories


def _lab():
    """Efficiency > Quantization, and Agents; papers and people on each."""
    efficiency = Topic.objects.create(name="Efficiency", slug="efficiency")
    quantization = Topic.objects.create(
        name="Quantization", slug="quantization", parent=efficiency
    )
    agents = Topic.objects.create(name="Agents", slug="agents")
    Topic.objects.create(name="Unused", slug="unused")
    ada, bo = factories.person(slug="ada"), factories.person(slug="bo")
    ada.topics.set([quantization, efficiency])
    bo.topics.set([agents])
    for topics in ([quantization], [quantization, efficiency], [efficiency], [agents]):
        factories.publication(authors=[ada]).topics.set(topics)


def _row(html: str, slug: str) -> tuple[int, int]:
    match = re.search(
        rf'<a href="/topics/{slug}/">[^<]+</a></th><td>(\d+)</td><td>(\d+)</td>', html
    )
    return int(match.group(1)), int(match.group(2))


def test_topic_map_counts_people_and_papers_with_subtopics(
    client, db, django_assert_max_num_queries
):
    _lab()
    # The map's counts in one query; the lab record (header) is the other.
    with django_assert_max_num_queries(2):
        html = client.get("/topics/").content.decode()
    # (people, papers): a paper or member on a topic and its subtopic counts once;
    # a member is on a topic by interest (Bo) or by a paper (Ada's on agents).
    assert _row(html, "efficiency") == (1, 3)
    assert _row(html, "quantization") == (1, 2)
    assert _row(html, "agents") == (2, 1)
    assert _row(html, "unused") == (0, 0)
    # Subtopics follow their topic in the table, indented.
    assert re.search(r'class="depth-1"><a href="/topics/quantization/">', html)
    papers = html[html.index('id="topic-map-papers-title"') : html.index("</svg>")]
    tiles = re.findall(r'<a href="(/topics/[^"]+/)"><title>([^<]+)</title>', papers)
    assert tiles == [
        ("/topics/efficiency/", "Efficiency: 3 papers"),
        ("/topics/quantization/", "Quantization: 2 papers"),
        ("/topics/agents/", "Agents: 1 paper"),
    ]
    assert "Unused" not in papers  # nothing to draw, but listed in the table
    assert "Agents: 2 people" in html


def test_topic_map_is_rendered_from_the_cache_until_the_next_write(
    client, db, django_assert_max_num_queries
):
    _lab()
    first = client.get("/topics/").content.decode()
    with django_assert_max_num_queries(0):
        assert client.get("/topics/").content.decode() == first
    Topic.objects.create(name="Robotics", slug="robotics")
    assert "/topics/robotics/" in client.get("/topics/").content.decode()


def test_topic_map_is_in_the_menu(client, db):
    html = client.get("/topics/").content.decode()
    assert '<a href="/topics/" aria-current="page">Topics</a>' in html
