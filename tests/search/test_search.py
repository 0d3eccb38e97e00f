import io

import pytest
from django.core.cache import cache
from django.core.management import call_command
from django.db import DatabaseError, connection
from django.test.utils import CaptureQueriesContext
from django.utils.html import escape

from directory.views import search_groups
from people.models import Person, PersonSearchDocument
from publications.models import Publication, PublicationSearchDocument
from publications.services import publication_import_bibtex
from search.engines import get_engine
from search.models import SearchTerm
from search.query import parse
from tests import factories

PAGES = ["/people/", "/publications/", "/events/", "/search/"]
HOSTILE = [
    '"unbalanced',
    "NEAR(kv cache)",
    "kv* AND OR NOT",
    "(((",
    "a:b title:x",
    "'; DROP TABLE people_person; --",
    "100%_wild\\card",
    "nul\x00byte",
    "祝",
    "ｋｖ　ｃａｃｈｅ",
    "x" * 10_240,
    "^caret +plus -minus ~tilde",
]


def _people(client, **params) -> list[str]:
    response = client.get("/people/", params)
    assert response.status_code == 200
    return [p.slug for p in response.context["object_list"]]


def _publications(client, **params) -> list[str]:
    response = client.get("/publications/", params)
    assert response.status_code == 200
    return [p.slug for p in response.context["object_list"]]


def test_parse_keeps_words_only():
    assert parse('KV-cache "quantization" NEAR(x) *').terms == (
        "kv",
        "cache",
        "quantization",
        "near",
        "x",
    )
    assert parse("\x00").terms == ()
    assert len(parse("word " * 1000).terms) == 12


def test_the_member_working_on_kv_cache_quantization_ranks_first(client, demo_lab):
    assert _people(client, q="KV cache quantization")[0] == "zhongzhu-zhou"
    assert _people(client, q="KV-cache quantization")[0] == "zhongzhu-zhou"


def test_native_script_names_match(client, demo_lab):
    assert _people(client, q="祝磊") == ["lei-zhu"]
    assert _people(client, q="左京伟") == ["jingwei-zuo"]


def test_hyphens_and_spaces_are_not_significant(client, demo_lab):
    assert _publications(client, q="long-context") == _publications(
        client, q="long context"
    )
    assert "duoattention" in _publications(client, q="long context")


def test_word_forms_match(client, demo_lab):
    assert "kitty" in _publications(client, q="quantized")


def test_accents_are_not_significant(client, db):
    factories.person(display_name="Søren Jürgensen", family_name="Jürgensen", slug="sj")
    assert _people(client, q="Jurgensen") == ["sj"]
    assert _people(client, q="JÜRGENSEN") == ["sj"]


def test_research_interest_ranks_above_a_single_paper_mention(client, db):
    topic = factories.topic(name="Diffusion models", slug="diffusion-models")
    specialist = factories.person(slug="specialist")
    specialist.topics.add(topic)
    occasional = factories.person(slug="occasional")
    factories.publication(
        title="A note that mentions diffusion once", authors=[occasional]
    )
    assert _people(client, q="diffusion") == ["specialist", "occasional"]


def test_an_exact_phrase_beats_scattered_words(client, db):
    factories.publication(title="Context windows for long documents", slug="scattered")
    factories.publication(title="Long context inference", slug="phrase")
    assert _publications(client, q="long context") == ["phrase", "scattered"]


def test_names_match_names_first(client, db):
    factories.person(display_name="Ada Lovelace", family_name="Lovelace", slug="ada")
    factories.person(slug="fan", bio="Inspired by the work of Lovelace on engines.")
    assert _people(client, q="Lovelace") == ["ada", "fan"]


def test_results_show_why_they_matched(client, demo_lab):
    response = client.get("/publications/", {"q": "streaming heads"})
    html = response.content.decode()
    assert "<mark>" in html
    assert response.context["object_list"][0].slug == "duoattention"


def test_snippets_escape_document_html(client, db):
    factories.person(slug="x", headline="<img src=x onerror=alert(1)> sparse attention")
    html = client.get("/people/", {"q": "sparse attention"}).content.decode()
    assert "<img src=x" not in html
    assert "&lt;img src=x" in html


def test_a_typo_is_corrected_and_said(client, demo_lab):
    response = client.get("/people/", {"q": "quantizaton"})
    assert response.context["corrected_from"].text == "quantizaton"
    assert [p.slug for p in response.context["object_list"]] == ["zhongzhu-zhou"]
    assert "Showing results for" in response.content.decode()


@pytest.mark.parametrize("page", PAGES)
def test_hostile_queries_never_fail(client, demo_lab, page):
    for text in HOSTILE:
        response = client.get(page, {"q": text, "page": "-1"})
        assert response.status_code == 200, text


@pytest.mark.parametrize(
    "params",
    [
        {"topic": "no-such-topic"},
        {"year": "twenty"},
        {"year": "99999"},
        {"year_from": "abc", "year_to": "1e9"},
        {"role": "emperor"},
        {"page": "9999"},
        {"page": "NaN"},
        {"sort": "chaos"},
        {"when": "yesterday"},
        {"venue": "../../etc/passwd"},
    ],
)
def test_bad_filter_values_get_a_message_or_are_ignored(client, db, params):
    factories.person()
    factories.publication()
    factories.event()
    for page in PAGES[:3]:
        response = client.get(page, params)
        assert response.status_code == 200
        assert response.context["paginator"].count > 0


def test_unknown_values_are_reported(client, demo_lab):
    html = client.get("/people/", {"topic": "no-such-topic"}).content.decode()
    assert "This filter was ignored" in html


def test_edits_reach_the_index(client, db):
    person = factories.person(slug="editable", headline="Compilers")
    assert _people(client, q="compilers") == ["editable"]
    person.headline = "Databases"
    person.save()
    assert _people(client, q="compilers") == []
    assert _people(client, q="databases") == ["editable"]
    pub = factories.publication(title="Tensor programs", authors=[person])
    assert _people(client, q="tensor") == ["editable"]  # publication titles count
    pub.delete()
    assert _people(client, q="tensor") == []


def test_topic_aliases_and_children_match(client, demo_lab):
    # "KV cache compression" is an alias of the KV-cache-quantization topic.
    assert "oscar" in _publications(client, q="KV cache compression")


def test_rebuild_command_restores_a_lost_index(client, demo_lab):
    PersonSearchDocument.objects.all().delete()
    assert _people(client, q="祝磊") == []
    call_command("rebuild_search_index", verbosity=0)
    assert _people(client, q="祝磊") == ["lei-zhu"]


def test_a_rebuilt_index_follows_later_edits(client, demo_lab):
    # The rebuild indexes in one pass with the per-row triggers (SQLite) or the GIN
    # index (PostgreSQL) set aside; both must be back afterwards.
    call_command("rebuild_search_index", verbosity=0)
    person = Person.objects.get(slug="lei-zhu")
    person.headline = "Zymurgy"
    person.save()
    assert _people(client, q="zymurgy") == ["lei-zhu"]
    person.delete()
    assert _people(client, q="zymurgy") == []


def test_a_failed_rebuild_leaves_the_index_as_it_was(client, demo_lab, monkeypatch):
    from search import indexing

    def broken(*args, **kwargs):
        raise RuntimeError("disk full")

    monkeypatch.setattr(indexing, "_insert_documents", broken)
    with pytest.raises(RuntimeError):
        indexing.rebuild(["person"])
    monkeypatch.undo()
    assert _people(client, q="祝磊") == ["lei-zhu"]
    person = Person.objects.get(slug="lei-zhu")
    person.headline = "Zymurgy"
    person.save()
    assert _people(client, q="zymurgy") == ["lei-zhu"]


def _fts_problems(document) -> list[str]:
    """What SQLite finds wrong in a document table's full-text index, or its trigger."""
    table = document._meta.db_table
    fts = f"{table}_fts"
    problems = []
    with connection.cursor() as cursor:
        try:
            cursor.execute(
                f"INSERT INTO {fts}({fts}, rank) VALUES ('integrity-check', 1)"
            )
        except DatabaseError as exc:
            problems.append(str(exc))
        cursor.execute(
            "SELECT name FROM sqlite_master WHERE type = 'trigger' AND tbl_name = %s",
            [table],
        )
        triggers = sorted(name for (name,) in cursor.fetchall())
    if triggers != [f"{table}_{suffix}" for suffix in ("ad", "ai", "au")]:
        problems.append(f"triggers: {triggers}")
    return problems


@pytest.mark.skipif(connection.vendor != "sqlite", reason="SQLite's FTS5 triggers")
def test_many_new_documents_are_indexed_at_once_and_later_edits_still_are(
    client, demo_lab, monkeypatch
):
    from search import indexing

    monkeypatch.setattr(indexing, "_BULK_FTS_ROWS", 2)  # an import of many entries
    bib = "".join(
        f"@article{{z{n}, title={{Zymotic kinetics {n}}}, journal={{J}}, year=2020}}\n"
        for n in range(3)
    )
    publication_import_bibtex(text=bib, source="z.bib")
    assert sorted(_publications(client, q="zymotic")) == [
        "zymotic-kinetics-0",
        "zymotic-kinetics-1",
        "zymotic-kinetics-2",
    ]
    assert _fts_problems(PublicationSearchDocument) == []
    # One new document takes the trigger, which is back.
    factories.publication(title="Zymotic rates", slug="zymotic-rates")
    assert "zymotic-rates" in _publications(client, q="zymotic")
    # A rebuild sets the trigger aside itself: the rows are indexed once, by it.
    call_command("rebuild_search_index", verbosity=0)
    assert len(_publications(client, q="zymotic")) == 4
    assert _fts_problems(PublicationSearchDocument) == []
    assert _fts_problems(PersonSearchDocument) == []


@pytest.mark.skipif(connection.vendor != "postgresql", reason="PostgreSQL vectors")
def test_stored_vectors_are_the_documents_search_vectors(demo_lab):
    from search.engines import PostgresEngine

    person = Person.objects.get(slug="lei-zhu")
    person.headline = "Zymurgy"
    person.save()  # an edited document, besides the inserted ones
    call_command("rebuild_search_index", "publication", stdout=io.StringIO())
    for document in (PersonSearchDocument, PublicationSearchDocument):
        rows = document.objects.annotate(expected=PostgresEngine.vector())
        pairs = list(rows.values_list("vector", "expected"))
        assert pairs and all(stored == expected for stored, expected in pairs)


def test_engine_follows_the_database(db):
    assert get_engine().vendor == connection.vendor


def test_search_page_groups_results_by_kind(
    client, demo_lab, django_assert_max_num_queries
):
    # 17 (the topics named like it among them), and the reasons people and papers
    # matched (once per data version); one more for where the papers' sources
    # disagree.
    # and the group record (once per data version).
    with django_assert_max_num_queries(35):
        response = client.get("/search/", {"q": "attention"})
    groups = {g["label"]: g for g in search_groups(parse("attention"))}
    assert groups["People"]["count"] >= 2
    assert groups["Publications"]["count"] >= 3
    assert groups["Publications"]["url"] == "/publications/?q=attention"
    assert Person.objects.count() == 4 and Publication.objects.count() > 20
    html = response.content.decode()
    for group in groups.values():
        assert f'<a href="{group["url"]}">{group["label"]}</a>' in html
    for group in groups.values():
        first = group["results"][0]
        name = getattr(first, "display_name", None) or getattr(first, "title", None)
        assert str(escape(name or first.name)) in html
    # Topics named like the query come first, linked to their pages.
    assert [t.slug for t in groups["Topics"]["results"]] == [
        "efficient-attention",
        "sparse-attention",
    ]
    assert '<a class="chip" href="/topics/sparse-attention/">' in html


def test_search_results_are_rendered_once_until_the_next_write(
    client, db, django_assert_max_num_queries
):
    factories.publication(title="Paged attention kernels")
    assert "Paged attention kernels" in client.get("/search/?q=paged").content.decode()
    with django_assert_max_num_queries(0):
        client.get("/search/?q=paged")
    factories.publication(title="Paged attention, revisited")
    html = client.get("/search/?q=paged").content.decode()
    assert "Paged attention, revisited" in html


def test_a_filtered_search_is_remembered_until_the_next_write(client, db, monkeypatch):
    # Three ranked candidates, so results also come from past the candidates.
    monkeypatch.setattr("search.filters.RANKED_CANDIDATES", 3)
    topic = factories.topic()
    for n in range(40):
        person = factories.person(slug=f"p{n}", headline=f"Sparse kernels {n}")
        if n % 4:
            person.topics.add(topic)
    params = {"q": "sparse", "topic": topic.slug}

    def pages() -> list[list[str]]:
        return [_people(client, **params, page=n) for n in (1, 2)]

    with CaptureQueriesContext(connection) as first:
        client.get("/people/", params)
    with CaptureQueriesContext(connection) as again:
        client.get("/people/", params)
    # The count, the ranked ids that pass the filters and the others are remembered.
    assert len(again.captured_queries) < len(first.captured_queries)
    remembered = pages()
    assert [len(page) for page in remembered] == [25, 5]
    assert {slug for page in remembered for slug in page} == {
        f"p{n}" for n in range(40) if n % 4
    }
    cache.clear()
    assert pages() == remembered

    late = factories.person(slug="late", headline="Sparse kernels too")
    late.topics.add(topic)
    assert client.get("/people/", params).context["paginator"].count == 31
    assert "late" in sum(pages(), [])
    factories.person(slug="elsewhere", headline="Sparse kernels, no topic")
    assert "elsewhere" not in sum(pages(), [])


def test_deleting_a_record_writes_no_search_document_for_it(db):
    member = factories.person()
    papers = [factories.publication(authors=[member, "Someone Else"]) for _ in "ab"]
    table = PublicationSearchDocument._meta.db_table

    with CaptureQueriesContext(connection) as queries:
        Publication.objects.filter(pk__in=[p.pk for p in papers]).delete()

    # Its authorships go first, and their signals must not index it again: with
    # foreign keys checked at once (as generate_lab leaves them) that would fail.
    written = [
        q["sql"] for q in queries if "INSERT INTO" in q["sql"] and table in q["sql"]
    ]
    assert written == []
    assert not PublicationSearchDocument.objects.filter(pk__in=[p.pk for p in papers])


def test_a_word_removed_from_a_bio_is_no_longer_suggested(client, db):
    member = factories.person(bio="Works on holography and lasers.")
    factories.person(bio="Studies lasers.")
    assert get_engine().suggest(parse("holograhpy")).phrase == "holography"
    member.bio = "Works on lasers."
    member.save()
    assert get_engine().suggest(parse("holograhpy")) is None
    response = client.get("/people/", {"q": "holograhpy"})
    assert response.context["corrected_from"] is None


def test_a_full_rebuild_forgets_words_no_document_has(db):
    member = factories.person(bio="Works on holography.")
    member.bio = "Works on lasers."
    member.save()
    call_command("rebuild_search_index", stdout=io.StringIO())
    assert not SearchTerm.objects.filter(word="holography").exists()
    assert SearchTerm.objects.filter(word="lasers").exists()
