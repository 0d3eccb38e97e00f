import random
import re

import pytest

from core.models import Topic
from tests import factories


@pytest.fixture
def lab(db, restore):
    restore(_lab)


def _lab() -> None:
    """Forty papers over fifteen years, two venues, two topics (one below the other)
    and three members, drawn from a seeded generator."""
    rng = random.Random(18)
    parent = Topic.objects.create(name="Efficiency", slug="efficiency")
    child = Topic.objects.create(
        name="Quantization", slug="quantization", parent=parent
    )
    other = Topic.objects.create(name="Agents", slug="agents")
    venues = [factories.venue(slug="neurips"), factories.venue(slug="icml")]
    people = [factories.person(slug=s) for s in ("ada", "bo", "cy")]
    for i in range(40):
        paper = factories.publication(
            title=f"Attention study {i}" if i % 3 else f"Kernel study {i}",
            year=rng.choice(range(2010, 2025, rng.choice([1, 2]))),
            venue=rng.choice(venues),
            status=rng.choice(["published", "preprint"]),
            authors=rng.sample(people, rng.randint(1, 3)) + ["Someone Else"],
        )
        paper.topics.set(rng.sample([parent, child, other], rng.randint(0, 2)))
    return people


def _facet_years(html: str) -> dict[int, int]:
    """The year facet's values and counts, as the page's facet list shows them."""
    start = html.index('aria-labelledby="facet-year"')
    section = html[start : html.index("</section>", start)]
    pairs = re.findall(
        r'facet-label">(\d{4})</span>\s*<span class="facet-count">'
        r'<span class="visually-hidden">[^<]*</span>(\d+)',
        section,
    )
    return {int(year): int(n) for year, n in pairs if int(n)}


def _chart_years(html: str, chart_id: str) -> dict[int, int]:
    """The numbers of a publications-per-year picture: its table and its bars."""
    start = html.index(f'aria-labelledby="{chart_id}-caption"')
    figure = html[start : html.index("</figure>", start)]
    table = figure[figure.index("<table") :]
    rows = re.findall(
        r'<th scope="row"><a href="[^"]*">(\d{4})</a></th><td>(\d+)</td>', table
    )
    bars = re.findall(r"<title>(\d{4}): (\d+) publications?</title>", figure)
    assert sorted(rows) == sorted(bars)
    return {int(year): int(n) for year, n in rows}


FILTERS = [
    {},
    {"q": "attention"},
    {"venue": "neurips"},
    {"year": ["2012", "2016"]},
    {"status": "preprint", "year_from": "2014"},
    {"topic": "efficiency", "author": "bo"},
    {"q": "kernel", "venue": "icml", "year_to": "2020"},
]


@pytest.mark.parametrize("params", FILTERS)
def test_publications_per_year_equal_the_year_facet(client, lab, params):
    html = client.get("/publications/", params).content.decode()
    facet = _facet_years(html)
    assert facet, "the filters should leave some papers"
    assert _chart_years(html, "list-years") == facet
    for year in params.get("year", []):
        # A selected year is marked in the picture as in the facet.
        assert re.search(
            rf"<title>{year}: \d+ publications?</title>"
            r'<rect class="chart-bar selected"',
            html,
        )


def test_profile_and_topic_pictures_equal_the_facet_of_their_list(client, lab):
    for page, chart_id, listing in [
        ("/people/ada/", "profile-years", "/publications/?author=ada"),
        ("/topics/efficiency/", "topic-years", "/publications/?topic=efficiency"),
    ]:
        drawn = _chart_years(client.get(page).content.decode(), chart_id)
        facet = _facet_years(client.get(listing).content.decode())
        assert drawn == facet and sum(drawn.values()) > 5
        # Each bar opens the list of that year's papers.
        html = client.get(page).content.decode()
        year = max(drawn)
        assert f'href="{listing}&amp;year={year}"' in html


def test_a_year_chart_is_drawn_only_where_papers_are(client, db):
    member = factories.person(slug="new-member")
    assert (
        'id="profile-years-caption"'
        not in client.get("/people/new-member/").content.decode()
    )
    factories.publication(authors=[member], year=2024)
    html = client.get("/people/new-member/").content.decode()
    assert "1 publication from 2024 to 2024; the most in 2024 (1)." in html


def test_pictures_cost_the_topic_page_a_fixed_number_of_queries(
    client, lab, django_assert_max_num_queries
):
    # topic, children, 3 lists and 3 counts, authors, links; the chart's topic
    # lookup and its facet counts (the papers in all, those on the topic, and
    # their years, or every count less the others'); the group record (once per
    # data version)
    with django_assert_max_num_queries(17) as few:
        client.get("/topics/efficiency/")
    for _ in range(20):
        paper = factories.publication(authors=["X", "Y"], year=2001)
        paper.topics.add(Topic.objects.get(slug="quantization"))
    with django_assert_max_num_queries(len(few.captured_queries)):
        response = client.get("/topics/efficiency/")
    assert "2001: 20 publications" in response.content.decode()


def test_citations_per_year_are_drawn_where_counts_exist(client, db):
    member = factories.person(slug="cited")
    counted = factories.publication(
        authors=[member],
        slug="counted",
        counts_by_year=[
            {"year": 2023, "cited_by_count": 4},
            {"year": 2025, "cited_by_count": 10},
            {"year": 0, "cited_by_count": 99},  # outside the years a paper can have
        ],
        cited_by_count=14,
    )
    factories.publication(
        authors=[member], counts_by_year=[{"year": 2025, "cited_by_count": 1}]
    )
    factories.publication(authors=[member], slug="uncounted")
    html = client.get(counted.get_absolute_url()).content.decode()
    assert _chart_rows(html, "publication-citations") == {2025: 10, 2023: 4}
    assert "14 citations from 2023 to 2025; the most in 2025 (10)." in html
    assert (
        'id="publication-citations'
        not in client.get("/publications/uncounted/").content.decode()
    )
    # A profile sums its papers' counts year by year.
    profile = client.get("/people/cited/").content.decode()
    assert _chart_rows(profile, "profile-citations") == {2025: 11, 2023: 4}


def _chart_rows(html: str, chart_id: str) -> dict[int, int]:
    start = html.index(f'aria-labelledby="{chart_id}-caption"')
    figure = html[start : html.index("</figure>", start)]
    rows = re.findall(r'<th scope="row">(\d{4})</th><td>(\d+)</td>', figure)
    return {int(year): int(n) for year, n in rows}
