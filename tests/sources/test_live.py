import io
import json
from urllib.parse import parse_qs

import pytest
from django.core.management import CommandError, call_command

from people.models import Person
from publications.models import Publication
from sources.models import Candidate
from sources.progress import terminal_progress
from sources.sync import sync_person
from tests import factories
from tests.sources.conftest import SAMPLES, sample

pytestmark = pytest.mark.django_db

ORCID = "0000-0002-1825-0097"
AUTHOR = "A5023888391"


@pytest.fixture
def apis(source_server, settings):
    settings.ORCID_API_URL = f"{source_server.url}/v3.0"
    settings.OPENALEX_API_URL = source_server.url
    settings.OPENALEX_MAILTO = "lab@example.org"
    source_server.add(f"/v3.0/{ORCID}/record", "orcid_record.json")
    source_server.add(f"/authors/{AUTHOR}", "openalex_author.json")
    source_server.add(
        "/works",
        "openalex_works_page1.json",
        "openalex_works_page2.json",
        "openalex_works_page3.json",
    )
    return source_server


@pytest.fixture
def mina(db) -> Person:
    return factories.person(
        given_name="Mina",
        family_name="Park",
        display_name="Mina Park",
        slug="mina-park",
        orcid=ORCID,
        openalex_id=AUTHOR,
    )


def test_import_orcid_fetches_the_record_as_json(apis, mina):
    out = io.StringIO()
    call_command(
        "import_orcid", "--orcid", f"https://orcid.org/{ORCID}", "--accept", stdout=out
    )
    (request,) = apis.requests
    assert request["path"] == f"/v3.0/{ORCID}/record"
    assert request["headers"]["Accept"] == "application/json"
    assert Publication.objects.count() == 3


def test_import_openalex_pages_the_works_with_a_cursor(apis, mina):
    call_command(
        "import_openalex", "--author", AUTHOR, "--accept", stdout=io.StringIO()
    )
    author, *pages = apis.requests
    assert author["path"] == f"/authors/{AUTHOR}"
    assert parse_qs(author["query"]) == {"mailto": ["lab@example.org"]}
    queries = [parse_qs(p["query"]) for p in pages]
    assert [q["cursor"][0] for q in queries] == [
        "*",
        "IlsxNjk0ODc0ODAwMDAwXSI=",
        "IlsxNzA0NzU4NDAwMDAwXSI=",
    ]
    assert all(
        q["filter"] == [f"author.id:{AUTHOR}"] and q["per-page"] == ["200"]
        for q in queries
    )
    assert sorted(Publication.objects.values_list("openalex_id", flat=True)) == [
        "W4385245566",
        "W4390000002",
    ]


def test_a_source_that_keeps_failing_is_one_clear_error(source_server, settings, mina):
    settings.ORCID_API_URL = source_server.url
    source_server.add(f"/{ORCID}/record", (503, {"Retry-After": "0"}, "down"))
    with pytest.raises(CommandError, match=rf"GET {source_server.url}/{ORCID}/record"):
        call_command("import_orcid", "--orcid", ORCID)
    assert len(source_server.requests) > 1  # it retried
    assert not Publication.objects.exists()


def test_an_unknown_identifier_is_named(source_server, settings, db):
    settings.OPENALEX_API_URL = source_server.url
    with pytest.raises(CommandError, match="A5000000001: not found"):
        call_command("import_openalex", "--author", "A5000000001")


def test_an_unreachable_source_is_named(settings, db):
    settings.ORCID_API_URL = "http://127.0.0.1:9"
    with pytest.raises(CommandError, match="unreachable"):
        call_command("import_orcid", "--orcid", ORCID)


def test_sync_person_reads_both_sources_and_queues_for_review(apis, mina):
    seen = []
    report = sync_person(
        mina, progress=lambda done, total, msg: seen.append((done, total))
    )
    assert report.errors == 0
    # ORCID's three works; OpenAlex's two are the same as two of them (by DOI and
    # by arXiv id) and add their ids and counts to those candidates.
    queued = Candidate.objects.filter(kind="create", target="publication")
    assert queued.count() == 3
    paper = queued.get(values__put_code=1001)
    assert (paper.values["openalex_id"], paper.values["cited_by_count"]) == (
        "W4385245566",
        42,
    )
    assert report.candidates == Candidate.objects.count()
    assert "0 errors" in report.summary().splitlines()[0]
    assert seen[0] == (0, 2) and seen[-1] == (2, 2)
    assert not Publication.objects.exists()


def test_one_failing_source_does_not_stop_the_other(source_server, settings, mina):
    settings.ORCID_API_URL = source_server.url
    settings.OPENALEX_API_URL = source_server.url
    source_server.add(f"/{ORCID}/record", (500, {}, "oops"))
    source_server.add(f"/authors/{AUTHOR}", "openalex_author.json")
    source_server.add("/works", "openalex_works_page3.json")
    report = sync_person(mina)
    assert report.errors == 1
    assert "ORCID: GET" in report.summary()
    assert "openalex: 0 created" in report.summary()


def test_sync_sources_refreshes_every_connected_member(apis, mina):
    factories.person()  # no identifiers: not read
    out = io.StringIO()
    call_command("sync_sources", stdout=out)
    assert out.getvalue().startswith("Mina Park: 0 created, 0 updated, ")
    assert {r["path"] for r in apis.requests} == {
        f"/v3.0/{ORCID}/record",
        f"/authors/{AUTHOR}",
        "/works",
    }


def test_sync_sources_fails_loudly_when_a_source_fails(source_server, settings, mina):
    settings.ORCID_API_URL = source_server.url
    settings.OPENALEX_API_URL = source_server.url
    with pytest.raises(CommandError, match="2 errors"):
        call_command("sync_sources", "--person", "mina-park", stdout=io.StringIO())


def openalex_work(n: int, **changes) -> dict:
    """The sample work under another id, title and DOI, with `changes`."""
    work = json.loads(sample("openalex_work.json"))
    work.update(
        id=f"https://openalex.org/W{n}",
        doi=f"https://doi.org/10.5555/{n}",
        title=f"Work {n}",
        display_name=f"Work {n}",
        locations=[],
        primary_location={},
    )
    return {**work, **changes}


def test_a_bad_record_is_one_error_and_every_member_is_synced(
    source_server, settings, mina
):
    settings.OPENALEX_API_URL = source_server.url
    Person.objects.filter(pk=mina.pk).update(orcid="")
    zoe = factories.person(display_name="Zoe Roth", slug="zoe-roth", openalex_id="A9")
    # A record already here keeps its count when the source's is not one.
    counted = factories.publication(title="Work 2", openalex_id="W2", year=2023)
    Publication.objects.filter(pk=counted.pk).update(cited_by_count=40)
    bad = [
        openalex_work(1, title=123, display_name=None),
        openalex_work(2, cited_by_count=-5),
        openalex_work(3, cited_by_count=10**12),
        openalex_work(4, cited_by_count=3.5),
        openalex_work(5, counts_by_year=[{"year": 2024, "cited_by_count": "30"}]),
        openalex_work(6, title="Nul\x00Title"),
    ]
    source_server.add(f"/authors/{AUTHOR}", "openalex_author.json")
    source_server.add("/authors/A9", {"id": "https://openalex.org/A9"})
    source_server.add(
        "/works",
        {"results": [*bad, openalex_work(7)], "meta": {"count": 7}},
        {"results": [openalex_work(8)], "meta": {"count": 1}},
    )
    out = io.StringIO()
    with pytest.raises(CommandError, match="6 errors"):
        call_command("sync_sources", stdout=out)
    lines = [line for line in out.getvalue().splitlines() if "error: " in line]
    assert lines == [
        "  error: OpenAlex work https://openalex.org/W1: 'int' object has no "
        "attribute 'split'",
        "  error: OpenAlex work https://openalex.org/W2: cited_by_count -5 is "
        "outside 0 to 10,000,000",
        "  error: OpenAlex work https://openalex.org/W3: cited_by_count "
        "1,000,000,000,000 is outside 0 to 10,000,000",
        "  error: OpenAlex work https://openalex.org/W4: cited_by_count 3.5 is not "
        "a whole number",
        "  error: OpenAlex work https://openalex.org/W5: cited_by_count of 2024 "
        "'30' is not a whole number",
        "  error: OpenAlex work https://openalex.org/W6: title holds a NUL "
        "character (\\x00)",
    ]
    queued = Candidate.objects.filter(target="publication")
    assert sorted(c.values["title"] for c in queued) == ["Work 7", "Work 8"]
    assert queued.get(values__title="Work 8").person == zoe
    assert Publication.objects.get(pk=counted.pk).cited_by_count == 40


@pytest.mark.parametrize(
    "changes",
    [
        {"cited_by_count": -5},
        {"cited_by_count": 10**12},
        {"cited_by_count": 3.5},
        {"cited_by_count": "42"},
        {"counts_by_year": [{"year": 2024, "cited_by_count": -1}]},
        {"abstract_inverted_index": {"nul\x00word": [0]}},
    ],
)
def test_a_work_that_cannot_be_stored_is_an_error_and_changes_nothing(
    source_server, settings, mina, changes
):
    settings.OPENALEX_API_URL = source_server.url
    Person.objects.filter(pk=mina.pk).update(orcid="")
    mina.refresh_from_db()
    counted = factories.publication(title="Work 2", openalex_id="W2", year=2023)
    Publication.objects.filter(pk=counted.pk).update(cited_by_count=40)
    source_server.add(f"/authors/{AUTHOR}", "openalex_author.json")
    source_server.add("/works", {"results": [openalex_work(2, **changes)]})
    report = sync_person(mina)
    assert report.errors == 1
    assert "error: OpenAlex work https://openalex.org/W2: " in report.summary()
    counted.refresh_from_db()
    assert (counted.cited_by_count, counted.abstract) == (40, "")


class Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_a_progress_bar_shows_on_a_terminal_only():
    assert terminal_progress(io.StringIO()) is None
    screen = Terminal()
    show = terminal_progress(screen)
    show(1, 2, "one")
    show(2, 2, "two")
    assert "[###############...............] 1/2 one" in screen.getvalue()
    assert screen.getvalue().endswith("\n")


def test_an_import_on_a_terminal_shows_its_progress(mina):
    screen = Terminal()
    call_command("import_orcid", str(SAMPLES / "orcid_record.json"), stdout=screen)
    assert "] 3/3 Learning to Fold" in screen.getvalue()
    quiet = io.StringIO()
    call_command("import_orcid", str(SAMPLES / "orcid_record.json"), stdout=quiet)
    assert "] 3/3" not in quiet.getvalue()
