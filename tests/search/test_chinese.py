"""Chinese text is found by its words, not only by the whole run of characters."""

import subprocess
import sys
from pathlib import Path

import pytest
from django.core.management import call_command

from core.lib.cjk import SEPARATOR, segment, unsegment
from search.query import MAX_TERMS, parse
from tests import factories

ROOT = Path(__file__).resolve().parents[2]


def _slugs(client, path: str, **params) -> list[str]:
    response = client.get(path, params)
    assert response.status_code == 200
    if path.startswith("/api/"):
        return [row["slug"] for row in response.json()["results"]]
    return [record.slug for record in response.context["object_list"]]


def test_segment_splits_runs_of_han_characters_into_words():
    assert segment("稀疏注意力机制").strip(SEPARATOR).split(SEPARATOR) == [
        "稀疏",
        "注意力",
        "机制",
    ]
    # A run is split from the letters next to it, and nothing else moves.
    assert segment("视觉Transformer, 2024\n") == "\x1f视觉\x1fTransformer, 2024\n"
    for text in ("稀疏注意力机制 (DuoAttention)\n视觉Transformer", "祝磊 · 左京伟"):
        assert unsegment(segment(text)) == text


def test_segment_leaves_text_without_han_characters_as_it_is():
    for text in ("KV-cache quantization\n", "Søren Jürgensen", "カメラ 한국어", ""):
        assert segment(text) is text


def test_latin_text_never_loads_the_dictionary():
    code = (
        "import sys; from core.lib.cjk import segment; "
        "segment('Søren Jürgensen: KV cache, 2024 ' * 50); "
        "print('jieba' in sys.modules)"
    )
    found = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True
    )
    assert found.stdout.strip() == "False", found.stderr


def test_a_chinese_query_becomes_its_words():
    assert parse("稀疏注意力").terms == ("稀疏", "注意力")
    assert parse("视觉 Transformer").terms == parse("视觉Transformer").terms
    # Particles and "paper" say nothing of what to find, unless nothing else is left.
    assert parse("朱磊的论文").terms == ("朱", "磊")
    assert parse("论文").terms == ("论文",)
    assert len(parse("稀疏注意力机制" * 10).terms) == MAX_TERMS


@pytest.mark.django_db
@pytest.mark.parametrize("q", ["注意力", "稀疏注意力", "注意力机制"])
def test_a_word_inside_chinese_text_finds_the_member_and_the_paper(client, q):
    member = factories.person(slug="sparse", headline="研究稀疏注意力机制")
    factories.person(slug="other", headline="研究量化")
    factories.publication(
        title="长上下文推理的稀疏注意力机制", slug="paper", authors=[member]
    )
    factories.publication(title="Long context inference", slug="english")
    for path in ("/people/", "/api/people/"):
        assert _slugs(client, path, q=q) == ["sparse"], path
    for path in ("/publications/", "/api/publications/"):
        assert _slugs(client, path, q=q) == ["paper"], path


@pytest.mark.django_db
def test_mixed_chinese_and_english_match_either_way(client):
    factories.person(slug="vit", headline="视觉Transformer的高效推理")
    assert _slugs(client, "/people/", q="视觉 Transformer") == ["vit"]
    assert _slugs(client, "/people/", q="transformer") == ["vit"]


@pytest.mark.django_db
def test_a_chinese_name_is_found_by_a_question_about_its_papers(client):
    factories.person(slug="zhu-lei", native_name="朱磊")
    factories.person(slug="zhu-xi", native_name="朱熹")
    assert _slugs(client, "/people/", q="朱磊的论文") == ["zhu-lei"]
    assert _slugs(client, "/api/people/", q="朱磊") == ["zhu-lei"]


@pytest.mark.django_db
def test_snippets_show_chinese_as_written(client):
    factories.person(slug="sparse", bio="我们研究稀疏注意力机制。")
    html = client.get("/people/", {"q": "注意力"}).content.decode()
    assert "稀疏<mark>注意力</mark>机制" in html
    assert SEPARATOR not in html


@pytest.mark.django_db
def test_edits_and_rebuilds_index_chinese_by_its_words(client):
    member = factories.person(slug="m", headline="Databases")
    member.headline = "稀疏注意力机制"
    member.save()
    assert _slugs(client, "/people/", q="注意力") == ["m"]
    call_command("rebuild_search_index", verbosity=0)
    assert _slugs(client, "/people/", q="注意力") == ["m"]
    member.headline = "Databases"
    member.save()
    assert _slugs(client, "/people/", q="注意力") == []


def test_the_demo_members_are_found_by_their_names_in_a_sentence(client, demo_lab):
    assert _slugs(client, "/people/", q="祝磊的论文") == ["lei-zhu"]
    assert _slugs(client, "/people/", q="左京伟") == ["jingwei-zuo"]
    assert _slugs(client, "/people/", q="左京") == ["jingwei-zuo"]
