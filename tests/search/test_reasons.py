"""Why a result matched, in words (search.reasons and the apps' sources)."""

import re

from search.query import parse
from search.reasons import Source, explain, once, topic_source


def test_matching_sources_are_grouped_by_label_and_counted():
    text = explain(
        parse("attention"),
        [
            topic_source("Sparse attention", "Efficient ML · Sparse attention"),
            Source("paper", "DuoAttention", hidden="retrieval and streaming heads"),
            Source("paper", "Quest", hidden="query-aware sparse attention"),
            Source("paper", "RelayAttention", hidden="long system prompts attention"),
            Source("paper", "Unrelated", hidden="scheduling"),
            Source("news", "Talk at UCSD", hidden="Efficient Attention Mechanisms"),
        ],
    )
    assert text == (
        "topic: Sparse <mark>attention</mark> · "
        "2 papers: Quest, RelayAttention · news: Talk at UCSD"
    )


def test_more_than_two_items_end_with_an_ellipsis_and_each_shows_once():
    sources = [Source("paper", f"Attention {n}") for n in (1, 2, 3, 2)]
    assert explain(parse("attention"), sources) == (
        "3 papers: <mark>Attention</mark> 1, <mark>Attention</mark> 2, …"
    )


def test_a_topic_found_by_a_topic_above_it_says_which():
    source = topic_source("Quantization", "Efficient machine learning · Quantization")
    assert explain(parse("machine learning"), [source]) == (
        "topic: Quantization (Efficient <mark>machine</mark> <mark>learning</mark>)"
    )


def test_word_forms_match_as_the_engines_stem_them():
    assert "<mark>quantization</mark>" in explain(
        parse("quantized"), [Source("topic", "KV cache quantization")]
    )
    assert explain(parse("kv"), [Source("topic", "KVQuant")]) == ""


def test_a_long_text_is_quoted_around_the_match():
    bio = " ".join(f"w{n}" for n in range(40)) + " speculative decoding " + "x " * 30
    text = explain(parse("speculative"), [Source("bio", bio, quote=True)])
    assert text.startswith("bio: “…w36 w37 w38 w39 <mark>speculative</mark> decoding")
    assert text.endswith("…”")


def test_text_is_escaped_before_it_is_marked():
    text = explain(parse("attention"), [Source("paper", "<b>attention</b> & co")])
    assert text == "paper: &lt;b&gt;<mark>attention</mark>&lt;/b&gt; &amp; co"


def test_no_source_holding_the_words_gives_nothing():
    assert explain(parse("robotics"), [Source("paper", "Attention")]) == ""


def test_an_engine_snippet_says_each_part_once():
    snippet = "Efficient ML · Quantization · Efficient ML · Quantization · KV cache"
    assert once(snippet) == "Efficient ML · Quantization · KV cache"


def _snippets(client, path: str, q: str) -> dict[str, str]:
    response = client.get(path, {"q": q})
    return {obj.slug: obj.snippet for obj in response.context["object_list"]}


def test_the_people_page_says_why_a_member_matched(client, demo_lab):
    zuo = _snippets(client, "/people/", "attention")["jingwei-zuo"]
    assert zuo.startswith("research interest: Sparse <mark>attention</mark> · ")
    assert "Efficient machine learning" not in zuo
    lei = _snippets(client, "/people/", "speculative decoding")["lei-zhu"]
    assert lei.startswith("news: Paper on MoE <mark>speculative</mark>")
    html = client.get("/people/", {"q": "attention"}).content.decode()
    assert "research interest: Sparse <mark>attention</mark>" in html


def test_the_publications_page_names_each_topic_once(client, demo_lab):
    for snippet in _snippets(client, "/publications/", "quantization").values():
        parts = re.split(r" · |: |, ", re.sub("<[^>]+>", "", snippet))
        assert len(parts) == len(set(parts)), snippet
    kitty = _snippets(client, "/publications/", "quantization")["kitty"]
    assert kitty.startswith("2 topics: ")


def test_the_site_search_says_why_too(client, demo_lab):
    html = client.get("/search/", {"q": "speculative decoding"}).content.decode()
    assert "news: Paper on MoE <mark>speculative</mark>" in html


def test_a_terse_source_found_only_by_its_hidden_text_is_left_out():
    experience = Source(
        "experience",
        "First Author",
        hidden="Proposed HilbertA, sparse attention along the Hilbert curve",
        terse=True,
    )
    assert explain(parse("hilbert curve"), [experience]) == ""
    # Its own words still say why; a paper's title says what it is whatever matched.
    assert explain(parse("first author"), [experience]) == (
        "experience: <mark>First</mark> <mark>Author</mark>"
    )
    paper = Source("paper", "HilbertA", hidden="sparse attention along the curve")
    assert explain(parse("curve"), [paper]) == "paper: HilbertA"


def test_no_member_is_said_to_match_by_a_bare_role(client, demo_lab):
    html = client.get("/people/", {"q": "hilbert curve"}).content.decode()
    assert "S. Zheng" in html
    assert "experience: First Author" not in html


def test_chinese_sources_are_matched_and_marked_by_their_words():
    sources = [
        Source("name", "祝磊"),
        Source("paper", "稀疏注意力机制", hidden="长上下文推理"),
        Source("summary", "我们提出一种用于长上下文推理的稀疏注意力机制。", quote=True),
    ]
    assert explain(parse("祝磊的论文"), sources[:1]) == (
        "name: <mark>祝</mark><mark>磊</mark>"
    )
    assert explain(parse("注意力"), sources) == (
        "paper: 稀疏<mark>注意力</mark>机制 · "
        "summary: “我们提出一种用于长上下文推理的稀疏<mark>注意力</mark>机制。”"
    )
    assert "\x1f" not in explain(parse("上下文"), sources)
