from tests import factories


def test_publication_list_searches(client, demo_lab, django_assert_max_num_queries):
    # count, ranked candidates, those passing the filters, rows, authors, links,
    # snippets, and all facets in one query
    with django_assert_max_num_queries(8):
        response = client.get("/publications/", {"q": "attention"})
    html = response.content.decode()
    assert "RelayAttention" in html and "DuoAttention" in html
    assert "AgentVerse" not in html


def test_publication_list_query_count_is_independent_of_page_size(
    client, db, django_assert_max_num_queries
):
    for _ in range(30):
        factories.publication(authors=["A", "B", "C"])
    with django_assert_max_num_queries(6):
        response = client.get("/publications/")
    assert response.status_code == 200


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
