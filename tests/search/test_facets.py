"""Facet counts checked against counts computed independently, in plain Python."""

import contextlib
import random
from collections import Counter

import pytest
from django.db import transaction
from django.http import QueryDict
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from core.models import Organization, Topic
from people.filters import PersonFilter
from people.models import Person
from publications.filters import PublicationFilter
from publications.models import Authorship, Publication, Venue
from search import facet_counts
from search.facets import Facet
from search.indexing import deferred
from search.models import FacetCount, FacetValue
from tests import factories

ROLES = ["phd_student", "researcher", "postdoc", "faculty"]
YEARS = [2021, 2022, 2023, 2024]


@pytest.fixture
def dataset(db, restore):
    return restore(_dataset)


def _dataset() -> dict:
    rng = random.Random(7)
    root = factories.topic(name="Machine learning", slug="ml")
    child = factories.topic(name="Quantization", slug="quant", parent=root)
    grandchild = factories.topic(name="KV quantization", slug="kvq", parent=child)
    other = factories.topic(name="Databases", slug="db")
    topics = [root, child, grandchild, other]
    orgs = [factories.organization(slug=f"org{i}") for i in range(3)]
    venues = [factories.venue(slug=f"v{i}") for i in range(3)]
    people = []
    for i in range(24):
        person = factories.person(
            slug=f"p{i}",
            role=rng.choice(ROLES),
            organization=rng.choice(orgs + [None]),
            status=rng.choice(["current", "current", "alumni"]),
        )
        person.topics.set(rng.sample(topics, rng.randint(0, 2)))
        people.append(person)
    for i in range(40):
        pub = factories.publication(
            slug=f"w{i}",
            year=rng.choice(YEARS),
            venue=rng.choice(venues + [None]),
            status=rng.choice(["published", "preprint"]),
            authors=rng.sample(people, rng.randint(1, 3)) + ["Outside Author"],
        )
        pub.topics.set(rng.sample(topics, rng.randint(0, 2)))
    return {"topics": topics}


def _subtree(slug: str) -> set[str]:
    """Slugs at or below a topic, walked in Python rather than through the closure."""
    found, frontier = {slug}, [slug]
    while frontier:
        children = Topic.objects.filter(parent__slug__in=frontier).values_list(
            "slug", flat=True
        )
        frontier = [c for c in children if c not in found]
        found |= set(frontier)
    return found


def _with_ancestors(topics) -> set[str]:
    slugs = set()
    for topic in topics:
        node = topic
        while node is not None:
            slugs.add(node.slug)
            node = node.parent
    return slugs


def _person_values(person: Person) -> dict[str, set[str]]:
    # A member is on their interests and on their papers' topics.
    papers = [a.publication for a in person.authorships.all()]
    topic_values = _with_ancestors(
        [*person.topics.all(), *(t for paper in papers for t in paper.topics.all())]
    )
    venues = {
        a.publication.venue.slug
        for a in person.authorships.select_related("publication__venue")
        if a.publication.venue
    }
    return {
        "topic": topic_values,
        "role": {person.role},
        "organization": {person.organization.slug} if person.organization else set(),
        "status": {person.status},
        "venue": venues,
    }


def _publication_values(pub: Publication) -> dict[str, set[str]]:
    topic_values = _with_ancestors(pub.topics.all())
    return {
        "topic": topic_values,
        "year": {str(pub.year)},
        "venue": {pub.venue.slug} if pub.venue else set(),
        "status": {pub.status},
        "author": {a.person.slug for a in pub.authorships.all() if a.person},
    }


def _expected(
    rows: list[dict[str, set[str]]], selection: dict[str, list[str]], facet: str
):
    """Counts per value of `facet` over rows matching every other facet's selection."""
    counts: dict[str, int] = {}
    for values in rows:
        if all(
            set(chosen) & values[name]
            for name, chosen in selection.items()
            if chosen and name != facet
        ):
            for value in values[facet]:
                counts[value] = counts.get(value, 0) + 1
    return counts


def _query(selection: dict[str, list[str]]) -> QueryDict:
    data = QueryDict(mutable=True)
    for name, values in selection.items():
        data.setlist(name, values)
    return data


person_selections = st.fixed_dictionaries(
    {
        "topic": st.lists(
            st.sampled_from(["ml", "quant", "kvq", "db"]), max_size=2, unique=True
        ),
        "role": st.lists(st.sampled_from(ROLES), max_size=2, unique=True),
        "organization": st.lists(
            st.sampled_from(["org0", "org1", "org2"]), max_size=2, unique=True
        ),
        "status": st.lists(
            st.sampled_from(["current", "alumni"]), max_size=1, unique=True
        ),
        "venue": st.lists(st.sampled_from(["v0", "v1", "v2"]), max_size=2, unique=True),
    }
)
publication_selections = st.fixed_dictionaries(
    {
        "topic": st.lists(
            st.sampled_from(["ml", "quant", "kvq", "db"]), max_size=2, unique=True
        ),
        "year": st.lists(
            st.sampled_from([str(y) for y in YEARS]), max_size=2, unique=True
        ),
        "venue": st.lists(st.sampled_from(["v0", "v1", "v2"]), max_size=2, unique=True),
        "status": st.lists(
            st.sampled_from(["published", "preprint"]), max_size=1, unique=True
        ),
        "author": st.lists(
            st.sampled_from([f"p{i}" for i in range(6)]), max_size=2, unique=True
        ),
    }
)
SETTINGS = settings(
    max_examples=40,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture],
)


@SETTINGS
@given(selection=person_selections)
def test_person_facet_counts_match_independent_counts(dataset, selection):
    rows = [
        _person_values(p)
        for p in Person.objects.prefetch_related(
            "topics__parent__parent",
            "authorships__publication__topics__parent__parent",
            "authorships__publication__venue",
        )
    ]
    filterset = PersonFilter(_query(selection), queryset=Person.objects.all())
    for result in filterset.facet_results():
        got = {o.value: o.count for o in result.options if o.count}
        assert got == _expected(rows, selection, result.name), result.name
    # The result list itself: every facet's selection applied.
    expected_total = sum(
        1
        for values in rows
        if all(set(v) & values[k] for k, v in selection.items() if v)
    )
    assert filterset.qs.count() == expected_total


@SETTINGS
@given(selection=publication_selections)
def test_publication_facet_counts_match_independent_counts(dataset, selection):
    rows = [
        _publication_values(p)
        for p in Publication.objects.prefetch_related(
            "topics__parent__parent", "authorships__person"
        ).select_related("venue")
    ]
    filterset = PublicationFilter(_query(selection), queryset=Publication.objects.all())
    for result in filterset.facet_results():
        got = {o.value: o.count for o in result.options if o.count}
        assert got == _expected(rows, selection, result.name), result.name


def test_a_parent_topic_includes_its_children(dataset):
    assert _subtree("ml") == {"ml", "quant", "kvq"}
    tagged_below = Person.objects.filter(topics__slug__in=["quant", "kvq"]).distinct()
    results = PersonFilter(QueryDict("topic=ml"), queryset=Person.objects.all()).qs
    assert set(tagged_below) <= set(results)


def test_each_facet_link_leads_to_as_many_results_as_it_shows(client, dataset):
    for url in ["/people/", "/people/?role=phd_student", "/publications/?year=2023"]:
        response = client.get(url)
        for facet in response.context["facets"]:
            if facet.selected:
                continue  # adding a value to a selected facet widens the OR
            for option in facet.options:
                followed = client.get(response.request["PATH_INFO"] + option.url)
                assert followed.context["paginator"].count == option.count, (
                    url,
                    facet.name,
                    option.value,
                )


@pytest.mark.parametrize("url", ["/people/", "/publications/", "/events/"])
def test_query_count_does_not_grow_with_results_or_facet_values(
    client, db, url, django_assert_max_num_queries
):
    member = factories.person()
    factories.publication(authors=[member])
    factories.event()
    with django_assert_max_num_queries(40) as few:
        client.get(url, {"q": "ada paper event"})
    baseline = len(few.captured_queries)
    topics = [factories.topic() for _ in range(15)]
    # Indexed once at the end, as an import writes many records.
    with deferred():
        for i in range(40):
            person = factories.person(
                role=ROLES[i % 4], organization=factories.organization()
            )
            person.topics.set(topics[i % 15 : i % 15 + 3])
            pub = factories.publication(
                venue=factories.venue(),
                year=2000 + i % 20,
                authors=[person, "X", "Y"],
            )
            pub.topics.set(topics[i % 15 : i % 15 + 2])
            factories.event(kind="talk")
    with django_assert_max_num_queries(baseline):
        response = client.get(url, {"q": "ada paper event"})
    assert response.status_code == 200


# Counts kept on write (search.facet_counts): after any sequence of the writes the
# site makes, the stored values are what the records say and every count is a
# recount of them, and the pages' counts equal those counted live through the joins.
WRITES = st.lists(
    st.tuples(
        st.sampled_from(
            [
                "paper topics",
                "paper venue",
                "paper year",
                "delete paper",
                "add author",
                "remove author",
                "member topics",
                "member role",
                "member organisation",
                "delete member",
                "move topic",
                "rename venue",
            ]
        ),
        st.integers(0, 10_000),
    ),
    min_size=1,
    max_size=5,
)


def _write(action: str, n: int) -> None:
    papers = list(Publication.objects.order_by("pk"))
    people = list(Person.objects.order_by("pk"))
    topics = list(Topic.objects.order_by("pk"))
    venues = list(Venue.objects.order_by("pk"))
    paper, person = papers[n % len(papers)], people[n % len(people)]
    if action == "paper topics":
        paper.topics.set(topics[n % 3 : n % 3 + n % 2 + 1])
    elif action == "paper venue":
        paper.venue = [*venues, None][n % (len(venues) + 1)]
        paper.save()
    elif action == "paper year":
        paper.year = YEARS[n % len(YEARS)]
        paper.save()
    elif action == "delete paper":
        paper.delete()
    elif action == "add author":
        last = paper.authorships.order_by("-position").first()
        Authorship.objects.create(
            publication=paper,
            person=person,
            name="X Author",
            position=(last.position if last else 0) + 1,
        )
    elif action == "remove author":
        Authorship.objects.filter(
            publication=paper, person__isnull=False
        ).first().delete()
    elif action == "member topics":
        person.topics.set(topics[n % 4 :])
    elif action == "member role":
        person.role = ROLES[n % len(ROLES)]
        person.save()
    elif action == "member organisation":
        person.organization = [*Organization.objects.all(), None][n % 4]
        person.save()
    elif action == "delete member":
        person.delete()
    elif action == "move topic":
        db = Topic.objects.get(slug="db")
        db.parent = None if db.parent else Topic.objects.get(slug="quant")
        db.save()
    elif action == "rename venue":
        venue = venues[n % len(venues)]
        venue.slug, venue.name = f"{venue.slug}x", f"{venue.name} renamed"
        venue.save()


def _live(filterset) -> dict:
    """Every facet's options counted through the joins, as before counts were kept."""
    filterset._counted_on_write = lambda name: False
    return {
        r.name: [(o.value, o.label, o.count) for o in r.options]
        for r in filterset.facet_results()
    }


@settings(SETTINGS, max_examples=15)
@given(writes=WRITES)
def test_counts_kept_on_write_equal_a_recount(dataset, writes):
    with transaction.atomic():
        for action, n in writes:
            with contextlib.suppress(AttributeError):  # nothing left to remove
                _write(action, n)
        for model, filterset in (
            (Person, PersonFilter),
            (Publication, PublicationFilter),
        ):
            kind = "person" if model is Person else "publication"
            ids = list(model.objects.values_list("pk", flat=True))
            values = facet_counts._values(model, facet_counts.facets_of(model), ids)
            stored = FacetValue.objects.filter(kind=kind)
            assert set(stored.values_list("record_id", "facet", "value")) == values
            counts = FacetCount.objects.filter(kind=kind)
            assert {
                (f, v): n for f, v, n in counts.values_list("facet", "value", "n")
            } == Counter((f, v) for _, f, v in values)
            for data in (
                "",
                "topic=ml",
                "topic=quant&role=faculty",
                "year=2022&venue=v1",
            ):
                kept = filterset(QueryDict(data), queryset=model.objects.all())
                live = filterset(QueryDict(data), queryset=model.objects.all())
                got = {
                    r.name: [(o.value, o.label, o.count) for o in r.options]
                    for r in kept.facet_results()
                }
                assert got == _live(live), (kind, data)
        transaction.set_rollback(True)


def _stored(kind: str) -> tuple[set, dict]:
    values = set(
        FacetValue.objects.filter(kind=kind).values_list("record_id", "facet", "value")
    )
    counts = {
        (f, v): n
        for f, v, n in FacetCount.objects.filter(kind=kind).values_list(
            "facet", "value", "n"
        )
    }
    return values, counts


@pytest.mark.parametrize("part", [False, True])
def test_many_records_at_once_are_written_by_the_database_itself(
    dataset, monkeypatch, part
):
    """A rebuild or a generated lab (from 2,000 records on: here from 1) writes
    the values with INSERT … SELECT, for all records or a part, then recounts."""
    before = _stored("publication")
    ids = list(Publication.objects.values_list("pk", flat=True))
    monkeypatch.setattr(facet_counts, "_RECOUNT_FROM", 1)
    monkeypatch.setattr(facet_counts, "_CHUNK", 7)
    facet_counts.drop("publication")
    facet_counts.store("publication", ids, set(ids[: len(ids) // 2] if part else ids))
    if not part:
        assert _stored("publication") == before
        return
    values, counts = _stored("publication")
    assert values == {row for row in before[0] if row[0] in ids[: len(ids) // 2]}
    assert counts == Counter((f, v) for _, f, v in values)
    # Many changed counts at once are recounted in one statement too.
    facet_counts.store("publication", ids, set(ids))
    assert _stored("publication") == before


def test_of_a_facet_with_many_values_the_most_frequent_and_the_selected_are_read(
    dataset,
):
    for data in ("author=p5", "author=p5&year=2022", ""):
        kept = PublicationFilter(QueryDict(data), queryset=Publication.objects.all())
        live = PublicationFilter(QueryDict(data), queryset=Publication.objects.all())
        got = {
            r.name: [(o.value, o.label, o.count) for o in r.options]
            for r in kept.facet_results(limit=2)
        }
        live._counted_on_write = lambda name: False
        assert got == {
            r.name: [(o.value, o.label, o.count) for o in r.options]
            for r in live.facet_results(limit=2)
        }
        if data:
            assert "p5" in [value for value, _, _ in got["author"]]


def test_a_facet_path_that_is_not_a_relation_is_counted_by_its_value():
    assert facet_counts.path_of(Publication, Facet("X", "year")).key == "year"
    assert facet_counts.path_of(Publication, Facet("X", "extra__slug")).model is None
    venue = facet_counts.path_of(
        Publication, Facet("V", "venue__slug", label_path="venue__name")
    )
    assert (venue.key, venue.model, venue.value_field, venue.label_fields) == (
        "venue__pk",
        Venue,
        "slug",
        ("name",),
    )
    assert not facet_counts.kept(Topic, "topic")
