"""The judged people queries (bench/relevance/people.yaml) are well-formed."""

import importlib.util
from collections.abc import Iterator
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[2]
DEMO = ROOT / "demo"
KINDS = {"paraphrase", "chinese", "topic", "misspelling", "method", "keyword"}


def _bench_run():
    # bench/ is no package; run.py imports only yaml at module level.
    path = ROOT / "bench" / "relevance" / "run.py"
    spec = importlib.util.spec_from_file_location("relevance_run", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _strings(value: object) -> Iterator[str]:
    if isinstance(value, dict):
        for item in value.values():
            yield from _strings(item)
    elif isinstance(value, list):
        for item in value:
            yield from _strings(item)
    elif value is not None:
        yield str(value)


def _records(folder: str, key: str) -> list[dict]:
    return [
        record
        for path in sorted((DEMO / folder).glob("*.yaml"))
        for record in yaml.safe_load(path.read_text())[key]
    ]


def _lab_file_text(slug: str) -> str:
    """Everything the lab files say of a member: their file, their papers and
    news, and the names of the topics and organisations these point to."""
    person = yaml.safe_load((DEMO / "people" / f"{slug}.yaml").read_text())
    theirs = [person] + [
        record
        for record in _records("publications", "publications")
        + _records("events", "events")
        if slug in set(_strings(record))
    ]
    said = {s for record in theirs for s in _strings(record)}
    named = [
        record
        for path, key in (("topics.yaml", "topics"), ("organizations.yaml", None))
        for record in _named_records(path, key)
        if record["slug"] in said
    ]
    return " ".join(sorted(said) + [s for record in named for s in _strings(record)])


def _named_records(path: str, key: str | None) -> list[dict]:
    data = yaml.safe_load((DEMO / path).read_text())
    return data[key or next(iter(data))]


@pytest.fixture(scope="module")
def judged() -> list[dict]:
    return yaml.safe_load((ROOT / "bench/relevance/people.yaml").read_text())


@pytest.fixture(scope="module")
def members() -> set[str]:
    return {path.stem for path in (DEMO / "people").glob("*.yaml")}


def test_there_are_forty_people_queries_or_more_with_unique_ids(judged):
    assert len(judged) >= 40
    assert len({item["id"] for item in judged}) == len(judged)


def test_every_query_names_a_demo_member_first_and_grades_only_members(judged, members):
    for item in judged:
        assert item["first"] in members, item["id"]
        graded = item.get("graded", {})
        assert set(graded) <= members - {item["first"]}, item["id"]
        assert set(graded.values()) <= {1}, item["id"]


def test_every_query_has_a_known_kind_and_language(judged):
    assert {item["kind"] for item in judged} == KINDS
    assert {item["lang"] for item in judged} == {"en", "zh"}


def test_chinese_queries_are_in_chinese_and_each_member_is_first_of_some(
    judged, members
):
    chinese = [item for item in judged if item["kind"] == "chinese"]
    assert len(chinese) >= 10
    assert all(item["lang"] == "zh" for item in chinese)
    assert all(any("\u4e00" <= c <= "\u9fff" for c in item["q"]) for item in chinese)
    assert {item["first"] for item in judged} == members


def test_paraphrases_share_no_word_with_their_members_lab_files(judged):
    words = _bench_run().words
    for item in judged:
        if item["kind"] == "paraphrase":
            shared = words(item["q"]) & words(_lab_file_text(item["first"]))
            assert not shared, f"{item['id']} shares {sorted(shared)}"
