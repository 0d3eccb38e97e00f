import io

import pytest
import yaml
from django.core.management import call_command
from django.core.management.base import CommandError
from hypothesis import given
from hypothesis import strategies as st

from core.models import Organization, Topic
from events.models import Event
from labdata import writer
from labdata.exporter import export_person
from labdata.reader import read_lab_files
from people.models import Person
from publications.models import Publication, Venue
from tests import factories

MEMBERS = ["jingwei-zuo", "lei-zhu", "shaoyi-zheng", "zhongzhu-zhou"]


def _export(slug: str) -> str:
    out = io.StringIO()
    call_command("export_person", slug, stdout=out)
    return out.getvalue()


def _import(*paths) -> str:
    out = io.StringIO()
    call_command("import_person", *[str(p) for p in paths], stdout=out)
    return out.getvalue()


def _empty_the_database() -> None:
    for model in (Event, Publication, Person, Venue, Organization, Topic):
        model.objects.all().delete()


def _counts() -> dict[str, int]:
    models = (Event, Publication, Person, Venue, Organization, Topic)
    return {m.__name__: m.objects.count() for m in models}


@pytest.mark.parametrize("slug", MEMBERS)
def test_export_then_import_changes_nothing_and_exports_the_same_bytes(
    demo_lab, tmp_path, slug
):
    first = _export(slug)
    path = tmp_path / f"{slug}.yaml"
    path.write_text(first, encoding="utf-8")

    assert "nothing changed" in _import(path)
    assert _export(slug) == first


@pytest.mark.parametrize("slug", MEMBERS)
def test_a_member_file_loads_into_an_empty_database_and_exports_the_same(
    demo_lab, tmp_path, slug
):
    first = _export(slug)
    path = tmp_path / f"{slug}.yaml"
    path.write_text(first, encoding="utf-8")
    _empty_the_database()
    assert set(_counts().values()) == {0}

    _import(path)

    assert _export(slug) == first
    person = Person.objects.get(slug=slug)
    assert Publication.objects.by_person(person).exists()


def test_export_is_the_documented_format_with_every_section(demo_lab):
    data = yaml.safe_load(_export("shaoyi-zheng"))

    assert list(data) == [
        "person",
        "publications",
        "topics",
        "organizations",
        "venues",
    ]  # Shaoyi Zheng has no events
    assert data["person"]["slug"] == "shaoyi-zheng"
    assert data["person"]["organization"] == "new-york-university"
    toma = next(p for p in data["publications"] if p["slug"] == "toma")
    assert toma["authors"][:2] == [
        {"name": "Wenbo Lu", "equal_contribution": True},
        {"name": "Shaoyi Zheng", "person": "shaoyi-zheng", "equal_contribution": True},
    ]
    assert toma["pages"] == "40930–40951"
    # Dates stay strings of their stated precision.
    education = data["person"]["education"]
    assert all(isinstance(row.get("start", ""), str) for row in education)


def test_export_carries_topic_parents_so_the_file_stands_alone(demo_lab):
    data = yaml.safe_load(_export("lei-zhu"))
    topics = {t["slug"]: t for t in data["topics"]}

    for topic in topics.values():
        assert topic.get("parent") in (None, *topics)
    # sparse-attention is under efficient-attention, itself under efficient-ml.
    assert {"efficient-attention", "efficient-ml"} <= set(topics)


def test_export_writes_the_same_text_to_a_file(demo_lab, tmp_path):
    path = tmp_path / "out.yaml"

    call_command("export_person", "lei-zhu", "-o", str(path), verbosity=0)

    assert path.read_text(encoding="utf-8") == _export("lei-zhu")


def test_export_of_an_unknown_member_is_a_clear_error(db):
    with pytest.raises(CommandError, match="No member with the slug 'nobody'"):
        call_command("export_person", "nobody")


def test_import_replaces_fields_and_clears_those_left_out(demo_lab, tmp_path):
    data = yaml.safe_load(_export("jingwei-zuo"))
    data["person"]["headline"] = "Systems for AI"
    del data["person"]["location"]
    data["person"]["education"].pop()
    path = tmp_path / "edited.yaml"
    path.write_text(yaml.safe_dump(data, allow_unicode=True), encoding="utf-8")

    _import(path)

    person = Person.objects.get(slug="jingwei-zuo")
    assert person.headline == "Systems for AI"
    assert person.location == ""
    assert person.education.count() == 3


def test_import_reports_file_record_and_field_and_writes_nothing(db, tmp_path):
    path = tmp_path / "bad.yaml"
    path.write_text(
        "topics:\n"
        "  - {slug: brand-new-topic, name: Brand new topic}\n"
        "person:\n"
        "  slug: ada\n"
        "  given_name: Ada\n"
        "  family_name: Lovelace\n"
        "  display_name: Ada Lovelace\n"
        "  role: phd_student\n"
        "  email: not-an-address\n"
        "  topics: [brand-new-topic]\n",
        encoding="utf-8",
    )

    with pytest.raises(CommandError) as error:
        call_command("import_person", str(path))

    message = str(error.value)
    assert str(path) in message
    assert "person 'ada'" in message
    assert "email: Enter a valid email address." in message
    assert "Nothing was imported." in message
    assert set(_counts().values()) == {0}


def test_import_names_the_row_of_a_bad_date(demo_lab, tmp_path):
    data = yaml.safe_load(_export("jingwei-zuo"))
    data["person"]["education"][1]["start"] = "2021-13"
    path = tmp_path / "bad.yaml"
    path.write_text(yaml.safe_dump(data, allow_unicode=True), encoding="utf-8")
    before = Person.objects.get(slug="jingwei-zuo").education.first().start_date

    with pytest.raises(CommandError, match=r"education #2: start: not a date"):
        call_command("import_person", str(path))

    assert Person.objects.get(slug="jingwei-zuo").education.first().start_date == (
        before
    )


@pytest.mark.parametrize(
    ("yaml_text", "expected"),
    [
        ("person: [1, 2\n", "not valid YAML"),
        ("people: {slug: x}\n", "section 'people' must be a list"),
        ("person: {given_name: A}\n", "every people record needs a slug"),
        (
            "person: {slug: x, given_name: A, family_name: B, display_name: A B, "
            "role: phd_student, topics: sparse-attention}\n",
            "person 'x': topics: must be a list of topic slugs",
        ),
        (
            "person: {slug: x, given_name: A, family_name: B, display_name: A B, "
            "role: wizard}\n",
            "person 'x': role: Value 'wizard' is not a valid choice.",
        ),
        (
            "person: {slug: x, given_name: A, family_name: B, display_name: A B, "
            "role: phd_student, links: [https://example.org]}\n",
            "person 'x': links: must be a list of mappings",
        ),
        (
            "events: [{slug: e, title: T, kind: talk, date: '2025-02-30'}]\n",
            "event 'e': date: not a date",
        ),
        (
            "events: [{slug: e, title: T, kind: talk}]\n",
            "event 'e': date: this field is required",
        ),
    ],
)
def test_import_rejects_malformed_files_with_a_clear_message(
    db, tmp_path, yaml_text, expected
):
    path = tmp_path / "bad.yaml"
    path.write_text(yaml_text, encoding="utf-8")

    with pytest.raises(CommandError, match=expected) as error:
        call_command("import_person", str(path))

    assert str(path) in str(error.value)
    assert set(_counts().values()) == {0}


def test_import_of_a_missing_file_is_a_clear_error(db, tmp_path):
    with pytest.raises(CommandError, match="No such file"):
        call_command("import_person", str(tmp_path / "absent.yaml"))


def test_co_authors_who_are_members_import_together(db, tmp_path):
    ada = factories.person(slug="ada", given_name="Ada", family_name="Lovelace")
    bob = factories.person(slug="bob", given_name="Bob", family_name="Babbage")
    factories.publication(slug="engine", authors=[ada, "Carol", bob])
    talk = factories.event(slug="talk", kind="talk")
    talk.people.set([ada, bob])
    files = {slug: tmp_path / f"{slug}.yaml" for slug in ("ada", "bob")}
    for slug, path in files.items():
        path.write_text(_export(slug), encoding="utf-8")
    exported = {slug: path.read_text(encoding="utf-8") for slug, path in files.items()}
    _empty_the_database()

    # Alone, Ada's file names Bob, whom the database does not know yet.
    with pytest.raises(CommandError, match="author 3: unknown person 'bob'"):
        call_command("import_person", str(files["ada"]))
    _import(files["ada"], files["bob"])

    assert {slug: _export(slug) for slug in files} == exported
    authors = Publication.objects.get(slug="engine").authorships.all()
    assert [a.person.slug if a.person else a.name for a in authors] == [
        "ada",
        "Carol",
        "bob",
    ]


def test_import_links_co_authors_already_in_the_database(db, tmp_path):
    ada = factories.person(slug="ada")
    bob = factories.person(slug="bob")
    factories.publication(slug="engine", authors=[ada, bob])
    path = tmp_path / "ada.yaml"
    path.write_text(_export("ada"), encoding="utf-8")
    Publication.objects.all().delete()

    _import(path)

    authors = Publication.objects.get(slug="engine").authorships.all()
    assert [a.person for a in authors] == [ada, bob]


def test_awkward_text_survives_the_round_trip(db, tmp_path):
    person = factories.person(
        slug="ada",
        headline='yes: "no" # 2025-01-01 \\ {a, b} [c] & *star ',
        bio="  Leading spaces\n\nTrailing spaces   \n\ttab\n--- not a document\n",
        quote="null",
        native_name="左京伟",
    )
    path = tmp_path / "ada.yaml"
    text = _export("ada")
    path.write_text(text, encoding="utf-8")
    _empty_the_database()

    _import(path)

    again = Person.objects.get(slug="ada")
    assert (again.headline, again.bio, again.quote, again.native_name) == (
        person.headline,
        person.bio,
        person.quote,
        person.native_name,
    )
    assert _export("ada") == text


@given(st.text(st.characters(exclude_categories=["Cs"])))
def test_the_writer_reads_back_any_text(value):
    data = {"value": value, "flow": writer.compact({"value": value})}

    text = yaml.dump(data, Dumper=writer.Dumper, allow_unicode=True, width=10**6)

    assert yaml.safe_load(text) == {"value": value, "flow": {"value": value}}


def test_reading_a_file_merges_the_person_section(tmp_path):
    path = tmp_path / "one.yaml"
    path.write_text("person: {slug: ada}\n", encoding="utf-8")

    assert read_lab_files([path])["people"] == {"ada": {"slug": "ada"}}


def test_export_leaves_blank_fields_out(db):
    factories.person(slug="ada", given_name="Ada", family_name="L", headline="")

    record = yaml.safe_load(export_person(Person.objects.get(slug="ada")))["person"]

    assert "headline" not in record
    assert "email" not in record
    assert record["status"] == "current"
