import re

from tests import factories


def test_publication_list_searches(client, demo_lab, django_assert_max_num_queries):
    # count, ranked candidates, those passing the filters, rows, authors, links,
    # conflicts, and why each matched: the records' titles, authors and topics,
    # plus the topic names (3, remembered for the data version); the facets: the
    # records in all and those found, all facets' values in one query, and the
    # names of the topics, venues and members shown; the group record (once per
    # data version).
    with django_assert_max_num_queries(19):
        response = client.get("/publications/", {"q": "attention"})
    html = response.content.decode()
    assert "RelayAttention" in html and "DuoAttention" in html
    assert "AgentVerse" not in html


def test_publication_list_query_count_is_independent_of_page_size(
    client, db, django_assert_max_num_queries
):
    for _ in range(30):
        factories.publication(authors=["A", "B", "C"])
    # count, rows, authors, links, conflicts, facets, and the group record (once
    # per data version)
    with django_assert_max_num_queries(7):
        response = client.get("/publications/")
    assert response.status_code == 200


def test_a_long_facet_folds_its_rest_under_a_summary_that_reads(client, demo_lab):
    html = client.get("/publications/").content.decode()
    shown = re.search(
        r'<summary>Show all (\d+)<span class="visually-hidden"> options of '
        r"topic</span></summary>",
        html,
    )
    assert shown and int(shown.group(1)) > 12
    assert "More topic" not in html


def test_publication_page_shows_authors_venue_and_bibtex(client, demo_lab):
    html = client.get("/publications/duoattention/").content.decode()
    assert "Guangxuan Xiao" in html and "ICLR" in html and "2025" in html
    assert "@inproceedings" in html


def test_bibtex_download_is_verbatim_when_the_source_gave_it(client, demo_lab):
    response = client.get("/publications/biformer.bib")
    assert response["Content-Type"].startswith("application/x-bibtex")
    assert "google_scholar_id = {d1gkVwhDpl0C}" in response.content.decode()


def test_a_bad_page_number_shows_the_nearest_page(client, demo_lab):
    last = client.get("/publications/", {"page": "999"})
    assert last.status_code == 200 and last.context["page_obj"].number == 1
    first = client.get("/publications/", {"page": "abc"})
    assert first.status_code == 200 and first.context["page_obj"].number == 1


def test_unknown_publication_is_a_404(client, db):
    assert client.get("/publications/nope/").status_code == 404


def test_an_undated_work_shows_n_d_and_lists_last_both_ways(client, db):
    factories.publication(title="Dated Old", year=2001)
    factories.publication(title="Undated", year=None, slug="undated")
    factories.publication(title="Dated New", year=2024)
    page = client.get("/publications/undated/").content.decode()
    assert "<dt>Year</dt><dd>n.d.</dd>" in page
    for sort, order in (
        ("newest", ["Dated New", "Dated Old", "Undated"]),
        ("oldest", ["Dated Old", "Dated New", "Undated"]),
    ):
        response = client.get("/publications/", {"sort": sort})
        titles = [p.title for p in response.context["page_obj"].object_list]
        assert titles == order
    html = client.get("/publications/").content.decode()
    assert '<span class="year">n.d.</span>' in html
    # The year facet lists years only: undated works have no bucket of their own.
    facets = client.get("/publications/").context["facets"]
    [year] = [facet for facet in facets if facet.name == "year"]
    assert [option.value for option in year.options] == ["2024", "2001"]


def test_publication_page_shows_citations_per_year_and_the_abstract(client, db):
    factories.publication(
        slug="paper",
        abstract="We <b>show</b> things.\n\nSecond paragraph.",
        openalex_id="W2741809807",
        cited_by_count=7,
        counts_by_year=[
            {"year": 2025, "cited_by_count": 5},
            {"year": 2024, "cited_by_count": 2},
        ],
        citations_retrieved_at="2025-12-01T10:00:00Z",
    )

    html = client.get("/publications/paper/").content.decode()

    assert '<h2 id="abstract-h">Abstract</h2>' in html
    assert "<p>We &lt;b&gt;show&lt;/b&gt; things.</p>" in html
    assert "<dt>Cited by</dt><dd>7 <small>(OpenAlex, 1 December 2025)</small>" in html
    assert '<th scope="row">2025</th><td>5</td>' in html
    assert 'href="https://openalex.org/W2741809807"' in html


def test_a_page_without_imported_data_shows_no_citation_sections(client, db):
    factories.publication(slug="paper")

    html = client.get("/publications/paper/").content.decode()

    assert "Cited by" not in html and "Abstract" not in html


def test_sort_cited_lists_the_most_cited_first_in_a_fixed_number_of_queries(
    client, db, django_assert_max_num_queries
):
    for count in (3, None, 40):
        factories.publication(title=f"Cited {count}", cited_by_count=count)
    for _ in range(20):
        factories.publication(authors=["A", "B"])
    with django_assert_max_num_queries(7):
        response = client.get("/publications/", {"sort": "cited"})
    titles = [p.title for p in response.context["object_list"]]
    assert titles[:2] == ["Cited 40", "Cited 3"]
    assert "Cited by 40" in response.content.decode()


def test_authors_without_a_place_read_as_with_after_the_ordered_ones(client, db):
    ada = factories.person(display_name="Ada Lovelace", slug="ada")
    unplaced = factories.publication(title="Unplaced", authors_complete=False)
    unplaced.authorships.create(
        position=1, name="Ada Lovelace", person=ada, position_unknown=True
    )
    mixed = factories.publication(
        title="Mixed", authors=["Bo First", "Cy Second"], authors_complete=False
    )
    mixed.authorships.create(position=3, name="Di Third", position_unknown=True)
    mixed.authorships.create(position=4, name="Ed Fourth", position_unknown=True)
    html = client.get("/publications/").content.decode()
    text = re.sub(r"<[^>]+>", "", html)
    assert "with Ada Lovelace" in text
    assert "(author; position not given" not in text
    assert "Bo First, Cy Second, et al.; with Di Third and Ed Fourth" in text, (
        "ordered authors first, then the others"
    )
    assert '<a class="author member" href="/people/ada/">Ada Lovelace</a>' in html


def test_a_contribution_without_dates_shows_no_empty_period(client, db):
    member = factories.person()
    paper = factories.publication(authors=[member])
    member.experience.create(role="Research intern", publication=paper)
    html = client.get(paper.get_absolute_url()).content.decode()
    assert f"{member.display_name} — Research intern</h3>" in html
