"""A member is on a topic through their research interests and through their papers."""

import importlib
import re

import pytest
from django.apps import apps
from django.core.management import call_command

from core.models import Topic
from people.models import PersonTopic
from tests import factories

pytestmark = pytest.mark.django_db


def _links() -> set[tuple[str, str, bool, int]]:
    return set(
        PersonTopic.objects.values_list(
            "person__slug", "topic__slug", "interest", "papers"
        )
    )


@pytest.fixture
def lab(restore):
    return restore(_lab)


def _lab() -> dict:
    """Caches > KV caches; Ada lists KV caches, Bo has two papers on it, Cy one paper
    on caches only, and Di nothing on either."""
    caches = factories.topic(name="Caches", slug="caches")
    kv = factories.topic(name="KV caches", slug="kv", parent=caches)
    people = {
        slug: factories.person(slug=slug, display_name=slug.title())
        for slug in ("ada", "bo", "cy", "di")
    }
    people["ada"].topics.set([kv])
    for _ in range(2):
        factories.publication(authors=[people["bo"], "An Outsider"]).topics.set([kv])
    factories.publication(authors=[people["cy"]]).topics.set([caches])
    factories.publication(authors=[people["di"]])
    return {"caches": caches, "kv": kv, **people}


def test_interests_and_papers_both_put_a_member_on_a_topic(lab):
    assert _links() == {
        ("ada", "kv", True, 0),
        ("bo", "kv", False, 2),
        ("cy", "caches", False, 1),
    }


def test_the_topic_filter_finds_members_by_papers_too_interests_first(client, lab):
    found = client.get("/people/", {"topic": "kv"}).context["object_list"]
    assert [p.slug for p in found] == ["ada", "bo"]
    # A topic includes those below it.
    found = client.get("/people/", {"topic": "caches"}).context["object_list"]
    assert [p.slug for p in found][0] == "ada"
    assert {p.slug for p in found} == {"ada", "bo", "cy"}
    api = client.get("/api/people/", {"topic": "kv", "facets": "topic"}).json()
    assert [p["slug"] for p in api["results"]] == ["ada", "bo"]
    # A facet is counted without its own selection (the others' are applied).
    counts = {o["value"]: o["count"] for o in api["facets"]["topic"]}
    assert counts == {"kv": 2, "caches": 3}
    roles = client.get("/api/people/", {"topic": "kv", "facets": "role"}).json()
    assert sum(o["count"] for o in roles["facets"]["role"]) == 2


def test_the_topic_facet_counts_members_by_papers_too(client, lab):
    facets = client.get("/api/people/", {"facets": "topic"}).json()["facets"]
    assert {o["value"]: o["count"] for o in facets["topic"]} == {"caches": 3, "kv": 2}


def test_the_topic_page_lists_members_by_papers_and_says_so(client, lab):
    html = client.get("/topics/kv/").content.decode()
    assert re.search(r'People <small class="count">2</small>', html)
    assert html.index(">Ada<") < html.index(">Bo<")
    cards = html[html.index(">Bo<") :]
    assert "On this topic through their papers" in cards[: cards.index("</li>")]
    ada = html[html.index(">Ada<") :]
    assert "through their papers" not in ada[: ada.index("</li>")]
    assert ">Di<" not in html


def test_links_follow_every_write_that_changes_them(lab):
    bo, cy, kv = lab["bo"], lab["cy"], lab["kv"]
    paper = cy.authorships.get().publication
    paper.topics.add(kv)
    assert ("cy", "kv", False, 1) in _links()
    bo.topics.add(kv)
    assert ("bo", "kv", True, 2) in _links()
    for authorship in bo.authorships.all():
        authorship.delete()
    assert ("bo", "kv", True, 0) in _links()
    bo.topics.clear()
    paper.delete()
    assert {(p, t) for p, t, *_ in _links()} == {("ada", "kv")}


def test_a_rebuild_and_the_migration_give_the_links_the_writes_gave(lab):
    written = _links()
    PersonTopic.objects.all().delete()
    call_command("rebuild_search_index", verbosity=0)
    assert _links() == written
    PersonTopic.objects.all().delete()
    migration = importlib.import_module("people.migrations.0009_person_topic")
    migration.link_members_to_topics(apps, None)
    assert _links() == written


def test_in_the_demo_the_members_of_a_topics_papers_are_on_it(client, demo_lab):
    kv = Topic.objects.get(slug="kv-cache-quantization")
    authors = set(
        kv.publications.exclude(authorships__person=None).values_list(
            "authorships__person__slug", flat=True
        )
    )
    assert authors
    html = client.get(kv.get_absolute_url()).content.decode()
    count = int(re.search(r'People <small class="count">(\d+)</small>', html)[1])
    assert count >= len(authors)
    found = client.get("/people/", {"topic": "diffusion-models"}).context["object_list"]
    assert found, "the members whose papers are on diffusion models"
