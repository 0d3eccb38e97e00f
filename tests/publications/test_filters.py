"""PublicationFilter on its own, from plain dicts, as the page and the API use it."""

from publications.filters import PublicationFilter
from publications.models import Publication
from tests import factories


def _slugs(data: dict) -> list[str]:
    queryset = Publication.objects.all()
    return [p.slug for p in PublicationFilter(data, queryset=queryset).qs]


def test_years_are_ored_and_a_range_is_inclusive(db):
    for year in (2022, 2023, 2024, 2025):
        factories.publication(slug=f"p{year}", year=year)

    assert _slugs({"year": ["2022", "2025"]}) == ["p2025", "p2022"]
    assert _slugs({"year_from": "2023", "year_to": "2024"}) == ["p2024", "p2023"]


def test_a_year_outside_the_sane_range_is_an_error(db):
    filterset = PublicationFilter({"year": ["1066"]}, queryset=Publication.objects)

    assert not filterset.is_valid()
    assert "outside" in str(filterset.errors["year"])


def test_author_finds_a_members_papers_once_each(db):
    member = factories.person(slug="member")
    factories.publication(slug="theirs", authors=[member, "Someone Else"])
    factories.publication(slug="not-theirs", authors=["Someone Else"])

    assert _slugs({"author": ["member"]}) == ["theirs"]


def test_selected_keeps_the_curated_list(db):
    factories.publication(slug="chosen", selected=True)
    factories.publication(slug="other")

    assert _slugs({"selected": "true"}) == ["chosen"]


def test_sorts_newest_oldest_and_by_title(db):
    factories.publication(slug="b", title="Beta", year=2020)
    factories.publication(slug="a", title="Alpha", year=2025)

    assert _slugs({}) == ["a", "b"]
    assert _slugs({"sort": "oldest"}) == ["b", "a"]
    assert _slugs({"sort": "title"}) == ["a", "b"]


def test_year_facet_lists_the_newest_year_first(db):
    for year in (2021, 2024, 2024):
        factories.publication(year=year)
    filterset = PublicationFilter({}, queryset=Publication.objects.all())

    (years,) = filterset.facet_results(["year"])

    assert [(o.value, o.count) for o in years.options] == [("2024", 2), ("2021", 1)]


def test_doi_finds_the_record_however_the_doi_is_spelt(db):
    factories.publication(slug="found", doi="10.1145/3531146.3533088")
    factories.publication(slug="other", doi="10.1145/1.2")

    for spelling in (
        "10.1145/3531146.3533088",
        "https://doi.org/10.1145/3531146.3533088",
        "doi:10.1145/3531146.3533088",
        "10.1145/3531146.3533088".upper(),
    ):
        assert _slugs({"doi": spelling}) == ["found"]


def test_a_doi_that_is_not_one_is_an_error(db):
    filterset = PublicationFilter({"doi": "N/A"}, queryset=Publication.objects)

    assert not filterset.is_valid()
    assert "not a DOI" in str(filterset.errors["doi"])


def test_sort_cited_puts_the_most_cited_first_and_unknown_counts_last(db):
    factories.publication(slug="unknown", year=2025)
    factories.publication(slug="few", cited_by_count=3)
    factories.publication(slug="many", cited_by_count=40)
    factories.publication(slug="none", cited_by_count=0)

    assert _slugs({"sort": "cited"}) == ["many", "few", "none", "unknown"]
