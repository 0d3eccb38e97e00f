"""The demo's lab files, fact by fact, on the pages where they belong; and every
field the site shows, with the sources that give it (issue 27, "Keep it true").

The demo is loaded once for the module, its pages read once, and rolled back.
Names and titles are read from demo/, never written here.
"""

import html
import re
from collections.abc import Iterator
from pathlib import Path

import pytest
from django.apps import apps
from django.conf import settings
from django.db import models, transaction
from django.test import Client

from core import provenance as core_provenance
from core.lib.dates import format_partial, parse_partial
from core.lib.text import render_markdown
from core.provenance import Origin
from events import provenance as events_provenance
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
from people import provenance as people_provenance
from publications import provenance as publications_provenance
from tests import factories

DEMO = Path(settings.BASE_DIR) / "demo"
APPS = ("directory", "people", "publications", "events")
FIELDS = {
    **core_provenance.FIELDS,
    **people_provenance.FIELDS,
    **publications_provenance.FIELDS,
    **events_provenance.FIELDS,
}
# Lab-file keys that stand for several fields, and the fields they give.
SPREAD_KEYS = {
    "start": {"start_date"},
    "end": {"end_date"},
    "ongoing": {"is_ongoing"},
    "date": {"date"},
    "end_date": {"end_date"},
}
EMPTY = (None, "", [], {}, False)


def _text(page: str) -> str:
    """The words a reader sees: the body, without scripts, tags or extra spaces."""
    body = page.split("<body", 1)[-1].split(">", 1)[-1]
    body = re.sub(r"<(script|style)\b.*?</\1>", " ", body, flags=re.S)
    return " ".join(html.unescape(re.sub(r"<[^>]+>", "", body)).split())


def _markdown_text(text: str) -> str:
    return _text(f"<body>{render_markdown(text)}")


def _partial(value) -> str:
    return format_partial(*parse_partial(str(value)))


@pytest.fixture(scope="module")
def demo(django_db_blocker) -> Iterator[dict]:
    """The demo's records as its files give them, and what the site makes of them."""
    lab = read_lab_files(DEMO.rglob("*.yaml"))
    seen: dict = {"lab": lab, "pages": {}, "rows": []}
    with django_db_blocker.unblock(), transaction.atomic():
        factories.demo_lab()
        client = Client()
        for section, prefix in (
            ("people", "/people/"),
            ("publications", "/publications/"),
            ("events", "/events/"),
        ):
            for slug in lab[section]:
                response = client.get(f"{prefix}{slug}/")
                assert response.status_code == 200, f"{prefix}{slug}/"
                seen["pages"][f"{prefix}{slug}/"] = _text(response.content.decode())
        seen["rows"] = list(_stored_rows(lab))
        transaction.set_rollback(True)
    yield seen


def _stored_rows(lab: dict) -> Iterator[tuple[models.Model, dict, dict]]:
    """Each stored row beside the lab-file record it was loaded from, with the
    values of the fields the site shows."""
    for name, section in (
        ("organizations", ORGANIZATION),
        ("venues", VENUE),
        ("people", PERSON),
        ("publications", PUBLICATION),
        ("events", EVENT),
    ):
        for slug, record in lab[name].items():
            obj = section.model.objects.get(slug=slug)
            yield from _walk(section, obj, record)
    topic = apps.get_model("directory", "Topic")
    for slug, record in lab["topics"].items():
        obj = topic.objects.get(slug=slug)
        yield obj, record, _values(obj)


def _walk(section: Section, obj: models.Model, record: dict) -> Iterator[tuple]:
    yield obj, record, _values(obj)
    for field in section.of(Kind.ROWS):
        manager = getattr(obj, field.name)
        order = "position" if _has(manager.model, "position") else "pk"
        rows = list(manager.order_by(order, "pk"))
        records = record.get(field.key) or []
        assert len(rows) == len(records), f"{obj}: {field.key}"
        for row, inner in zip(rows, records, strict=True):
            yield from _walk(field.section, row, inner)


def _has(model: type[models.Model], name: str) -> bool:
    return any(f.name == name for f in model._meta.get_fields())


def _values(obj: models.Model) -> dict:
    values = {f.name: getattr(obj, f.attname) for f in _shown_fields(type(obj))}
    for field in type(obj)._meta.many_to_many:
        values[field.name] = list(getattr(obj, field.name).all())
    return values


def _shown_fields(model: type[models.Model]) -> list[models.Field]:
    return [
        f for f in model._meta.concrete_fields if not (f.primary_key and f.auto_created)
    ]


# -- the list of fields and their sources ---------------------------------------


def test_every_field_of_every_model_has_its_sources_listed():
    missing, unknown = [], []
    for label in APPS:
        for model in apps.get_app_config(label).get_models():
            names = {f.name for f in _shown_fields(model)}
            names |= {f.name for f in model._meta.many_to_many}
            listed = FIELDS.get(model, {})
            missing += [f"{model.__name__}.{n}" for n in sorted(names - set(listed))]
            unknown += [f"{model.__name__}.{n}" for n in sorted(set(listed) - names)]
            assert all(listed.values()), f"{model.__name__}: a field with no source"

    assert missing == [], "fields the site may show with no source listed"
    assert unknown == [], "fields listed that the models do not have"


def test_the_lab_file_keys_listed_are_the_keys_the_loader_reads():
    for section in _sections():
        listed = FIELDS[section.model]
        for field in section.fields:
            if field.kind is Kind.ROWS:
                continue
            names = SPREAD_KEYS.get(field.key, {field.name})
            if field.kind is Kind.PERIOD:
                names = {"start_date", "end_date", "is_ongoing"}
            for name in names:
                assert core_provenance.lab(_key(field.key, name)) in listed[name], (
                    f"{section.model.__name__}.{name}: the lab file's "
                    f"{field.key!r} is not listed as its source"
                )
        for name, given in listed.items():
            for source in given:
                if source.origin is Origin.LAB_FILE and source.detail != "slug":
                    assert _reads(section, source.detail), (
                        f"{section.model.__name__}.{name}: no lab-file key "
                        f"{source.detail!r}"
                    )


def _key(key: str, name: str) -> str:
    return {"start_date": "start", "end_date": "end", "is_ongoing": "ongoing"}.get(
        name, key
    )


def _reads(section: Section, key: str) -> bool:
    keys = {field.key for field in section.fields}
    if section.has(Kind.PERIOD):
        keys |= {"end", "ongoing"}
    if section.has(Kind.DATES):
        keys |= {"end_date"}
    return key in keys


def _sections() -> Iterator[Section]:
    pending = [ORGANIZATION, VENUE, PERSON, PUBLICATION, EVENT]
    while pending:
        section = pending.pop()
        yield section
        pending += [f.section for f in section.of(Kind.ROWS)]


def test_no_demo_value_is_shown_that_its_lab_file_does_not_give(demo):
    unsourced = []
    for obj, record, values in demo["rows"]:
        for name, value in values.items():
            given = FIELDS[type(obj)][name]
            if value in EMPTY or not all(source.stated for source in given):
                continue
            # Nothing but the lab files wrote the demo: no import, no admin.
            keys = [s.detail for s in given if s.origin is Origin.LAB_FILE]
            if not any(record.get(key) not in (None, "", []) for key in keys):
                unsourced.append(f"{type(obj).__name__} {obj}: {name} = {value!r}")

    assert unsourced == []


# -- the facts on the pages -------------------------------------------------------


def _missing(page: str, facts: list) -> list[str]:
    wanted = [" ".join(str(fact).split()) for fact in facts if fact not in EMPTY]
    return [fact for fact in wanted if fact not in page]


def _organization(demo: dict, slug: str | None) -> str:
    return demo["lab"]["organizations"][slug]["name"] if slug else ""


def _period(record: dict) -> list[str]:
    return [_partial(record[key]) for key in ("start", "end") if record.get(key)]


def _person_facts(demo: dict, person: dict) -> list:
    lab = demo["lab"]
    facts = [
        person[key]
        for key in (
            "display_name",
            "preferred_name",
            "native_name",
            "pronunciation",
            "position_title",
            "headline",
            "team",
            "location",
            "office",
            "quote",
            "quote_author",
        )
        if key in person
    ]
    facts.append(_organization(demo, person.get("organization")))
    facts += [
        _markdown_text(person.get(key, "")) for key in ("bio", "research_summary")
    ]
    facts += [
        lab["topics"][slug].get("name", slug) for slug in person.get("topics", [])
    ]
    facts += [link.get("label") or link.get("url") for link in person.get("links", [])]
    for area in person.get("research_areas", []):
        facts += [area.get("title"), area.get("subtitle"), *area.get("items", [])]
    for row in person.get("education", []):
        facts += [row.get(k) for k in ("degree", "field", "unit", "location", "gpa")]
        facts += [row.get("advisor"), _organization(demo, row.get("organization"))]
        facts += [*row.get("honours", []), *row.get("notes", []), *_period(row)]
    for row in person.get("experience", []):
        facts += [row.get(k) for k in ("role", "team", "location", "supervisor")]
        facts += [row.get("supervisor_relation")]
        facts += [_organization(demo, row.get("organization")), *_period(row)]
        facts += [
            *row.get("notes", []),
            *(link["label"] for link in row.get("links", [])),
        ]
        if row.get("publication"):
            facts.append(lab["publications"][row["publication"]]["title"])
    for row in person.get("awards", []):
        facts += [row.get(k) for k in ("year", "title", "granting_body", "detail")]
        facts.append(row.get("times"))
    for row in person.get("service", []):
        facts += [row.get(k) for k in ("role", "venue", "detail")]
    for row in person.get("teaching", []):
        facts += [row.get(k) for k in ("course_code", "course_title", "role", "term")]
        facts.append(_organization(demo, row.get("organization")))
    for row in person.get("open_source", []):
        facts += [row.get(k) for k in ("project", "organization", "role")]
        facts += [row.get(k) for k in ("description", "start_year", "end_year")]
        facts += [link.get("label") for link in row.get("links", [])]
    for row in person.get("skills", []):
        facts += [row.get("category"), row.get("items")]
    for row in person.get("interests", []):
        facts += [row.get("title"), row.get("description")]
    # The member's papers and the news and talks they are in.
    facts += [
        paper["title"]
        for paper in lab["publications"].values()
        if any(a.get("person") == person["slug"] for a in paper.get("authors", []))
    ]
    facts += [
        event["title"]
        for event in lab["events"].values()
        if person["slug"] in event.get("people", [])
    ]
    return facts


def test_every_fact_of_a_member_file_is_on_the_profile(demo):
    missing = {
        slug: _missing(demo["pages"][f"/people/{slug}/"], _person_facts(demo, person))
        for slug, person in demo["lab"]["people"].items()
    }

    assert missing == {slug: [] for slug in demo["lab"]["people"]}


def _publication_facts(demo: dict, paper: dict) -> list:
    lab = demo["lab"]
    facts = [paper.get(k) for k in ("title", "alternative_title", "venue_detail")]
    facts += [paper.get(k) for k in ("year", "doi", "arxiv_id", "pages", "volume")]
    facts += [paper.get("authors_source")]
    if paper.get("venue"):
        venue = lab["venues"][paper["venue"]]
        facts += [venue["name"], venue.get("short_name")]
    facts += [author["name"] for author in paper.get("authors", [])]
    facts += [_markdown_text(paper.get(k, "")) for k in ("summary", "key_results")]
    facts += [lab["topics"][slug].get("name", slug) for slug in paper.get("topics", [])]
    facts += [link.get("label") or link.get("url") for link in paper.get("links", [])]
    for conflict in paper.get("conflicts", []):
        facts += [conflict["about"], *conflict["statements"]]
    return facts


def test_every_fact_of_a_publication_record_is_on_its_page(demo):
    papers = demo["lab"]["publications"]
    missing = {
        slug: _missing(
            demo["pages"][f"/publications/{slug}/"], _publication_facts(demo, paper)
        )
        for slug, paper in papers.items()
    }

    assert missing == {slug: [] for slug in papers}


def _event_facts(demo: dict, event: dict) -> list:
    lab = demo["lab"]
    facts = [event.get(k) for k in ("title", "location", "host")]
    facts += [_partial(event["date"]), _markdown_text(event.get("description", ""))]
    facts += [lab["people"][slug]["display_name"] for slug in event.get("people", [])]
    facts += [lab["publications"][s]["title"] for s in event.get("publications", [])]
    facts += [link.get("label") or link.get("url") for link in event.get("links", [])]
    return facts


def test_every_fact_of_an_event_record_is_on_its_page(demo):
    events = demo["lab"]["events"]
    missing = {
        slug: _missing(demo["pages"][f"/events/{slug}/"], _event_facts(demo, event))
        for slug, event in events.items()
    }

    assert missing == {slug: [] for slug in events}


# -- provenance shown -------------------------------------------------------------


def test_each_profile_section_says_where_its_facts_come_from(client, demo_lab):
    person = next(iter(read_lab_files(DEMO.glob("people/*.yaml"))["people"].values()))
    page = client.get(f"/people/{person['slug']}/").content.decode()
    blocks = re.findall(r'<details class="sources">(.*?)</details>', page, re.S)
    texts = [_text(f"<body>{block}") for block in blocks]

    file = f"demo/people/{person['slug']}.yaml"
    record = f"Source: the lab file {file}, written from {person['written_from']}."
    assert record in texts[0]
    assert all(text.startswith("Where this comes from Source: ") for text in texts)
    assert any(f"Lab file ({len(person['education'])} row" in t for t in texts)

    api = client.get(f"/api/people/{person['slug']}/").json()["provenance"]
    assert api["record"]["lab_file"] == file
    assert api["record"]["written_from"] == person["written_from"]
    assert api["education"][0]["source"] == "lab_file"


def test_a_paper_says_where_its_author_list_and_counts_come_from(client, demo_lab):
    papers = read_lab_files(DEMO.glob("publications/*.yaml"))["publications"]
    slug, paper = next((s, p) for s, p in papers.items() if p.get("authors_source"))

    api = client.get(f"/api/publications/{slug}/").json()["provenance"]

    assert api["source"] == "lab_file" and api["label"] == "Lab file"
    assert api["authors_source"] == paper["authors_source"]
