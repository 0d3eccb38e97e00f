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
from labdata.sections import (
    EVENT,
    ORGANIZATION,
    PERSON,
    PUBLICATION,
    VENUE,
    Kind,
    Section,
)
from people.models import Person
from publications.models import Publication, Venue
from tests import factories

MEMBERS = ["jingwei-zuo", "lei-zhu", "s-zheng", "zhongzhu-zhou"]


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

    # Only the member's record of the file they were last loaded from changes.
    assert _import(path) == "    1 person updated\n"
    assert Person.objects.get(slug=slug).lab_file == f"{slug}.yaml"
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
    data = yaml.safe_load(_export("s-zheng"))

    assert list(data) == [
        "person",
        "publications",
        "topics",
        "organizations",
        "venues",
    ]  # S. Zheng has no events
    assert data["person"]["slug"] == "s-zheng"
    assert data["person"]["organization"] == "new-york-university"
    toma = next(p for p in data["publications"] if p["slug"] == "toma")
    assert toma["authors"][:2] == [
        {"name": "W. Lu", "equal_contribution": True},
        {"name": "S. Zheng", "person": "s-zheng", "equal_contribution": True},
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
        (
            "person: {slug: x, given_name: A, family_name: B, display_name: A B, "
            "role: phd_student, orcid: 0000-0002-1825-0098}\n",
            "person 'x': orcid: .* its check digit is wrong",
        ),
        (
            "publications: [{slug: p, title: T, year: 2024, "
            "citations_retrieved_at: '2025-12-01 10:00'}]\n",
            "publication 'p': citations_retrieved_at: .* with its offset",
        ),
        (
            "publications: [{slug: p, title: T, year: 2024, "
            "counts_by_year: [{year: 2024}]}]\n",
            "publication 'p': counts_by_year: Counts by year are a list",
        ),
        (
            "publications: [{slug: p, title: T, year: 2024, source: crossref}]\n",
            "publication 'p': source: Value 'crossref' is not a valid choice.",
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


def test_rows_a_lab_file_states_are_recorded_as_coming_from_it(demo_lab):
    person = Person.objects.get(slug="jingwei-zuo")
    rows = [*person.education.all(), *person.experience.all()]
    rows += list(Publication.objects.by_person(person))
    assert rows and {row.source for row in rows} == {"lab_file"}
    # The exporter leaves the default out, so demo files stay as written.
    data = yaml.safe_load(_export("jingwei-zuo"))
    written = [*data["person"]["education"], *data["person"]["experience"]]
    assert not any("source" in row for row in [*written, *data["publications"]])


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


def test_a_file_that_sets_every_key_loads_and_exports_the_same_bytes(db, tmp_path):
    path = tmp_path / "ada.yaml"
    path.write_text(EVERY_KEY, encoding="utf-8")

    _import(path)

    assert _export("ada") == EVERY_KEY


def _keys_left_out(section: Section, records: list[dict]) -> set[str]:
    written = {key for record in records for key in record}
    left_out = set()
    for field in section.fields:
        if field.kind is Kind.PERIOD:
            left_out |= {"start", "end", "ongoing"} - written
        elif field.kind is Kind.DATES:
            left_out |= {"date", "end_date"} - written
        elif field.key not in written:
            left_out.add(field.key)
        if field.kind is Kind.ROWS:
            rows = [row for record in records for row in record.get(field.key, [])]
            inner = _keys_left_out(field.section, rows)
            left_out |= {f"{field.key}.{key}" for key in inner}
    return left_out


@pytest.mark.parametrize(
    ("name", "section"),
    [
        ("person", PERSON),
        ("publications", PUBLICATION),
        ("events", EVENT),
        ("organizations", ORGANIZATION),
        ("venues", VENUE),
    ],
)
def test_the_every_key_file_sets_every_key_of_the_sections(name, section):
    records = yaml.safe_load(EVERY_KEY)[name]
    records = records if isinstance(records, list) else [records]

    assert _keys_left_out(section, records) == set()


# What export_person wrote (at 3bbf214, before the field tables) for a member whose
# file set every key of the format once, with the identifier, citation and
# provenance keys added since: the format must not drift.
EVERY_KEY = """\
# Ada Lovelace: a lab file in the format of demo/README.md.
# Load it with `python manage.py import_person FILE`.
person:
  slug: ada
  given_name: Ada
  family_name: Lovelace
  display_name: Ada Lovelace
  preferred_name: Ada
  native_name: 艾达
  pronunciation: /AY-da/
  role: postdoc
  position_title: Postdoc
  headline: Engines
  organization: org
  team: Team
  location: London
  office: Room 1
  email: ada@example.org
  secondary_email: ada2@example.org
  publish_email: true
  bio: |
    First paragraph.

    Second paragraph.
  research_summary: Summary.
  quote: A quote.
  quote_author: Someone
  photo_alt: A portrait
  status: alumni
  written_from: The member's own page
  orcid: 0000-0002-1825-0097
  openalex_id: A5023888391
  topics: [child-topic]
  links:
    - {kind: github, label: GitHub, url: 'https://github.com/ada'}
  research_areas:
    - {title: Area, subtitle: Sub, items: [a, b]}
  education:
    - organization: org
      unit: School
      degree: PhD
      field: CS
      location: L
      start: "2020"
      ongoing: true
      advisor: Prof
      gpa: '4.0'
      honours: [Prize]
      notes: [Note]
      source: orcid
      source_id: '4242'
      retrieved_at: "2025-11-30T08:15:00+00:00"
    - organization: org
      degree: BSc
      start: "2015-09"
      end: "2019-06"
      ongoing: false
      source: manual
  experience:
    - kind: internship
      organization: org
      role: Intern
      team: T
      location: L
      start: "2021-05"
      end: "2021-08-31"
      ongoing: false
      supervisor: Boss
      supervisor_relation: Managed by
      notes: [Did]
      publication: engine
      source: bibtex
      source_id: lovelace2021
      retrieved_at: "2025-06-01T12:00:00+00:00"
      links:
        - {label: PR, url: 'https://example.org/pr'}
  awards:
    - {year: 2016, title: Award, granting_body: Body, detail: Detail, times: Twice}
  service:
    - {kind: reviewer, role: Reviewer, venue: NeurIPS, year: 2025, detail: Detail}
  teaching:
    - {course_code: C1, course_title: Course, role: Tutor, organization: org, term: Fall 2023}
  open_source:
    - project: P
      organization: Group
      role: Author
      start_year: 2020
      end_year: 2021
      description: Desc
      publication: engine
      links:
        - {label: Repo, url: 'https://example.org/repo'}
  skills:
    - {category: Languages, items: 'Python, C'}
  interests:
    - {title: Music, description: Piano.}
publications:
  - slug: engine
    title: The engine
    alternative_title: Notes
    working_title: true
    kind: journal_article
    year: 2024
    month: 9
    venue: venue
    venue_detail: Vol 1
    status: published
    presentation: oral
    selected: true
    authors_complete: false
    authors_source: The record
    summary: Sum
    abstract: The abstract.
    key_results: Results
    doi: 10.1234/engine
    arxiv_id: '2401.00001'
    openalex_id: W2741809807
    pages: 1-10
    volume: '1'
    number: '2'
    bibtex: |
      @article{engine,
        title={The engine}
      }
    orcid_put_codes: [12345, 67890]
    cited_by_count: 7
    counts_by_year:
      - {year: 2025, cited_by_count: 5}
      - {year: 2024, cited_by_count: 2}
    citations_retrieved_at: "2025-12-01T00:00:00+00:00"
    source: openalex
    source_id: W2741809807
    retrieved_at: "2025-12-01T00:00:00+00:00"
    topics: [parent-topic]
    links:
      - {kind: pdf, label: PDF, url: 'https://example.org/pdf'}
    authors:
      - {name: Ada Lovelace, person: ada, equal_contribution: true, corresponding: true}
      - {name: Charles Babbage}
      - {name: Mary Somerville, position_unknown: true}
    conflicts:
      - {about: venue, statements: [Here, There]}
events:
  - slug: talk
    kind: talk
    title: A talk
    date: "2024-05-01"
    end_date: "2024-05-03"
    location: Room
    host: Host
    description: Desc
    people: [ada]
    publications: [engine]
    topics: [child-topic]
    links:
      - {kind: video, label: Watch, url: 'https://example.org/v'}
topics:
  - {slug: child-topic, name: Child topic, parent: parent-topic}
  - {slug: parent-topic, name: Parent topic, aliases: [one, two], description: Above.}
organizations:
  - {slug: org, name: Org, short_name: O, kind: lab, location: Here, url: 'https://o.example.org'}
venues:
  - {slug: venue, name: Venue, short_name: V, kind: journal, url: 'https://v.example.org'}
"""  # noqa: E501
