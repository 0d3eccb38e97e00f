import io
import json

import pytest
from django.core.management import CommandError, call_command

from core.models import Topic
from people.models import Education, Experience, Person
from publications.models import Publication
from sources import review
from sources.models import Candidate
from tests import factories
from tests.sources.conftest import SAMPLES, sample

pytestmark = pytest.mark.django_db

WORK = str(SAMPLES / "openalex_work.json")
AUTHOR = str(SAMPLES / "openalex_author.json")
RECORD = str(SAMPLES / "orcid_record.json")


def run(command: str, *args) -> str:
    out = io.StringIO()
    call_command(command, *args, stdout=out)
    return out.getvalue()


@pytest.fixture
def topics(db) -> dict[str, Topic]:
    return {
        "nlp": factories.topic(
            name="Natural language processing",
            aliases="NLP\nNatural Language Processing Techniques",
        ),
        "sparse": factories.topic(name="Sparse attention"),
    }


def test_an_accepted_openalex_work_keeps_every_field(mina, jonas, topics):
    out = run("import_openalex", WORK, "--accept")
    pub = Publication.objects.get()
    assert pub.title == "Sparse Attention for Long Documents"
    assert (pub.kind, pub.year, pub.month) == ("conference_paper", 2023, 8)
    assert pub.venue.name == "Knowledge Discovery and Data Mining"
    assert (pub.doi, pub.openalex_id, pub.arxiv_id) == (
        "10.1145/3580305.3599999",
        "W4385245566",
        "2305.01234",
    )
    assert pub.abstract.startswith("Long documents strain attention;")
    assert pub.cited_by_count == 42
    assert pub.counts_by_year == [
        {"year": 2023, "cited_by_count": 12},
        {"year": 2024, "cited_by_count": 30},
    ]
    assert pub.citations_retrieved_at is not None
    assert (pub.source, pub.source_id) == ("openalex", "W4385245566")
    # Authors in order: Mina by her ORCID iD, Jonas by name ("J. Weber").
    assert [(a.name, a.person) for a in pub.authorships.order_by("position")] == [
        ("Mina Park", mina),
        ("J. Weber", jonas),
        ("Wei Li", None),
    ]
    # Topics by name or alias; the unknown one is reported, not created.
    assert list(pub.topics.all()) == [topics["nlp"]]
    assert "Topic Modeling" in out and not Topic.objects.filter(name="Topic Modeling")
    assert pub.links.get().url == "https://arxiv.org/pdf/2305.01234"


def test_without_accept_it_queues_a_candidate_once(mina):
    run("import_openalex", WORK)
    assert not Publication.objects.exists()
    candidate = Candidate.objects.get()
    assert (candidate.kind, candidate.target, candidate.status) == (
        "create",
        "publication",
        "pending",
    )
    run("import_openalex", WORK)
    assert Candidate.objects.count() == 1


def test_an_accepted_candidate_writes_the_record_and_reimport_creates_nothing(
    mina, admin_user
):
    run("import_openalex", WORK)
    assert review.accept(list(Candidate.objects.all()), user=admin_user) == 1
    pub = Publication.objects.get()
    assert pub.authorships.filter(person=mina).exists()
    out = run("import_openalex", WORK)
    assert "0 created, 0 updated, 0 for review, 1 unchanged" in out
    assert Publication.objects.count() == 1
    assert Candidate.objects.count() == 1


def test_an_accepted_candidate_is_found_under_its_authors(mina, admin_user):
    run("import_openalex", WORK)
    review.accept(list(Candidate.objects.all()), user=admin_user)
    mina.refresh_from_db()
    pub = Publication.objects.get()
    # Written outside an import's deferred re-index: the authors come after the
    # record's own save, and both documents still carry them.
    assert "Wei Li" in pub.search_document.body + pub.search_document.extra
    assert pub.title in mina.search_document.body


def test_a_rejected_candidate_does_not_come_back(mina, admin_user):
    run("import_openalex", WORK)
    review.reject(list(Candidate.objects.all()), user=admin_user)
    run("import_openalex", WORK)
    assert Candidate.objects.get().status == "rejected"
    assert not Publication.objects.exists()


@pytest.mark.parametrize(
    "identifier",
    [
        {"doi": "10.1145/3580305.3599999"},
        {"openalex_id": "W4385245566"},
        {"arxiv_id": "2305.01234"},
    ],
)
def test_it_finds_an_existing_record_by_identifier(mina, identifier):
    pub = factories.publication(title="Old title", year=2023, **identifier)
    run("import_openalex", WORK, "--accept")
    assert Publication.objects.count() == 1
    pub.refresh_from_db()
    assert pub.cited_by_count == 42
    # The title was not given by OpenAlex: a value of its own goes to review.
    assert pub.title == "Old title"
    candidate = Candidate.objects.get(kind="update")
    title = next(d for d in candidate.diff if d["field"] == "title")
    assert title == {
        "field": "title",
        "current": "Old title",
        "proposed": "Sparse Attention for Long Documents",
        "edited": True,
    }


def test_it_finds_an_existing_record_by_orcid_put_code(mina):
    pub = factories.publication(title="Learning to Fold", year=2022)
    pub.orcid_put_codes = [1003]
    pub.save()
    run("import_orcid", RECORD, "--accept")
    assert Publication.objects.filter(title="Learning to Fold").count() == 1


def test_a_title_and_year_alone_make_a_possible_duplicate(mina):
    pub = factories.publication(title="Sparse attention for long documents!", year=2023)
    run("import_openalex", WORK, "--accept")
    assert Publication.objects.count() == 1
    candidate = Candidate.objects.get()
    assert (candidate.kind, candidate.object_id) == ("duplicate", pub.pk)


def test_a_manual_edit_is_never_overwritten(mina, tmp_path):
    run("import_openalex", WORK, "--accept")
    pub = Publication.objects.get()
    pub.title = "Sparse attention for long documents (our title)"
    pub.save()
    changed = json.loads(sample("openalex_work.json"))
    changed["title"] = "Sparse Attention for Longer Documents"
    changed["abstract_inverted_index"] = {"Revised.": [0]}
    changed["cited_by_count"] = 50
    path = tmp_path / "work.json"
    path.write_text(json.dumps(changed))
    run("import_openalex", str(path), "--accept")
    pub.refresh_from_db()
    assert pub.title == "Sparse attention for long documents (our title)"
    # What nobody edited follows the source.
    assert (pub.abstract, pub.cited_by_count) == ("Revised.", 50)
    candidate = Candidate.objects.get()
    assert candidate.diff == [
        {
            "field": "title",
            "current": "Sparse attention for long documents (our title)",
            "proposed": "Sparse Attention for Longer Documents",
            "edited": True,
        }
    ]


def test_an_orcid_record_with_create_makes_the_member_and_their_rows(topics):
    out = run("import_orcid", RECORD, "--create", "--accept")
    member = Person.objects.get(orcid="0000-0002-1825-0097")
    assert (member.given_name, member.family_name, member.display_name) == (
        "Mina",
        "Park",
        "Mina Park",
    )
    assert list(member.topics.all()) == [topics["sparse"]]
    assert "Origami" in out
    assert member.links.get().url == "https://minapark.example.org/"
    job = Experience.objects.get(person=member)
    assert (job.organization.name, job.team, job.role) == (
        "University of Toronto",
        "Computer Science",
        "PhD student",
    )
    assert (str(job.start_date), job.start_precision, job.is_ongoing) == (
        "2021-09-01",
        "month",
        True,
    )
    assert (job.source, job.source_id) == ("orcid", "51")
    school = Education.objects.get(person=member)
    assert (school.degree, school.unit) == ("BSc", "Computer Science and Engineering")
    assert (str(school.start_date), school.start_precision) == ("2016-03-02", "day")
    assert (str(school.end_date), school.end_precision) == ("2021-02-01", "month")
    assert "2021-02-29 is not a date; kept at month precision" in out
    works = {p.title: p for p in Publication.objects.all()}
    assert set(works) == {
        "Sparse attention for long documents",
        "Quantized KV Caches",
        "Learning to Fold",
    }
    fold = works["Learning to Fold"]
    assert (fold.doi, fold.orcid_put_codes, fold.year, fold.month) == (
        "10.1000/jml.2022.17",
        [1003],
        2022,
        None,
    )
    assert [(a.name, a.person) for a in fold.authorships.all()] == [
        ("Mina Park", member),
        ("Jonas Weber", None),
    ]
    # A summary names no authors: the work is the member's own.
    kv = works["Quantized KV Caches"]
    assert (kv.arxiv_id, kv.kind, kv.authors_complete) == (
        "2401.04567",
        "preprint",
        False,
    )
    assert [a.person for a in kv.authorships.all()] == [member]


def test_orcid_then_openalex_meet_on_the_same_record(mina):
    run("import_orcid", RECORD, "--accept")
    run("import_openalex", WORK, "--accept")
    pub = Publication.objects.get(doi="10.1145/3580305.3599999")
    assert (pub.orcid_put_codes, pub.openalex_id, pub.cited_by_count) == (
        [1001],
        "W4385245566",
        42,
    )


def test_an_openalex_author_fills_the_members_ids(jonas):
    member = factories.person(
        given_name="Mina", family_name="Park", display_name="Mina Park"
    )
    run("import_openalex", AUTHOR, "--accept")
    member.refresh_from_db()
    assert (member.orcid, member.openalex_id) == ("0000-0002-1825-0097", "A5023888391")


def test_ambiguous_authors_are_listed_not_guessed(db):
    factories.person(
        given_name="Wei", family_name="Li", display_name="Wei Li", slug="wei-li-1"
    )
    factories.person(
        given_name="Wei", family_name="Li", display_name="Wei Li", slug="wei-li-2"
    )
    out = run("import_openalex", WORK, "--accept")
    assert (
        "ambiguous: Sparse Attention for Long Documents: author Wei Li could be "
        "Wei Li, Wei Li" in out
    )
    assert Publication.objects.get().authorships.get(name="Wei Li").person is None


def test_a_dry_run_writes_nothing(mina):
    out = run("import_orcid", RECORD, "--accept", "--dry-run")
    assert out.splitlines()[0] == (
        "orcid: 6 created, 0 updated, 0 for review, 1 unchanged "
        "(dry run: nothing written)"
    )
    assert not Publication.objects.exists()
    assert not Candidate.objects.exists()


@pytest.mark.parametrize(
    "command, content, message",
    [
        ("import_openalex", '{"id": "https://openalex.org/W1", "title": ', "not JSON"),
        ("import_openalex", "<html>", "not JSON"),
        ("import_openalex", sample("orcid_record.json"), "not an OpenAlex work"),
        ("import_openalex", '{"id": "https://openalex.org/I185261750"}', "I185261750"),
        ("import_orcid", sample("openalex_work.json"), "not an ORCID record"),
        ("import_orcid", sample("orcid_record.json")[:500], "not JSON"),
        ("import_orcid", sample("orcid_record.xml")[:900], "not well-formed XML"),
    ],
)
def test_bad_input_is_one_clear_error_and_writes_nothing(
    mina, tmp_path, command, content, message
):
    path = tmp_path / "bad.json"
    path.write_text(content)
    with pytest.raises(CommandError, match=message) as error:
        run(command, str(path), "--accept")
    assert str(path) in str(error.value)
    assert not Publication.objects.exists() and not Candidate.objects.exists()


def test_an_unknown_orcid_id_without_create_is_refused(db):
    with pytest.raises(
        CommandError, match="no member has the ORCID iD 0000-0002-1825-0097"
    ):
        run("import_orcid", RECORD, "--accept")
    assert not Person.objects.exists() and not Publication.objects.exists()


def test_a_record_of_another_member_is_refused(db):
    other = factories.person(orcid="0000-0001-5109-3700")
    with pytest.raises(CommandError, match="but .* has the ORCID iD"):
        run("import_orcid", RECORD, "--person", other.slug, "--accept")


def test_a_missing_file_or_member_is_named(mina):
    with pytest.raises(CommandError, match="nowhere.json: cannot be read"):
        run("import_openalex", "nowhere.json")
    with pytest.raises(CommandError, match="No member has the slug 'nobody'"):
        run("import_openalex", WORK, "--person", "nobody")


def test_a_pending_proposal_follows_the_source_without_repeating(mina, tmp_path):
    run("import_orcid", RECORD)
    job = Candidate.objects.get(target="experience")
    changed = json.loads(sample("orcid_record.json"))
    summaries = changed["activities-summary"]["employments"]["affiliation-group"]
    summaries[0]["summaries"][0]["employment-summary"]["role-title"] = "PhD candidate"
    path = tmp_path / "record.json"
    path.write_text(json.dumps(changed))
    run("import_orcid", str(path))
    job.refresh_from_db()
    assert Candidate.objects.filter(target="experience").count() == 1
    assert job.values["role"] == "PhD candidate"


@pytest.mark.parametrize(
    ("given", "family", "credit", "slug"),
    [
        ("磊", "祝", "祝磊", "zhu-lei"),
        ("Лев", "Толстой", "", "lev-tolstoy"),
        ("🙂", "🙂", "", "0000-0002-1825-0097"),
    ],
)
def test_a_member_created_from_a_name_in_any_script_gets_a_slug_of_it(
    tmp_path, given, family, credit, slug
):
    record = json.loads(sample("orcid_record.json"))
    name = record["person"]["name"]
    name["given-names"]["value"], name["family-name"]["value"] = given, family
    name["credit-name"] = {"value": credit} if credit else None
    path = tmp_path / "record.json"
    path.write_text(json.dumps(record), encoding="utf-8")
    run("import_orcid", str(path), "--create", "--accept")
    assert Person.objects.get(orcid="0000-0002-1825-0097").slug == slug
