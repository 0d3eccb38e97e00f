"""PersonFilter on its own, from plain dicts, as the page and the API use it."""

from people.filters import PersonFilter
from people.models import Person
from tests import factories


def _slugs(data: dict) -> list[str]:
    return [p.slug for p in PersonFilter(data, queryset=Person.objects.all()).qs]


def test_a_topic_includes_the_topics_below_it(db):
    parent = factories.topic(slug="quantization")
    child = factories.topic(slug="kv-cache-quantization", parent=parent)
    factories.person(slug="near").topics.add(child)
    factories.person(slug="far")

    assert _slugs({"topic": ["quantization"]}) == ["near"]


def test_values_of_one_facet_are_ored_and_facets_are_anded(db):
    rice = factories.organization(slug="rice")
    factories.person(slug="a", role="faculty", organization=rice)
    factories.person(slug="b", role="postdoc", organization=rice)
    factories.person(slug="c", role="postdoc")

    assert sorted(_slugs({"role": ["faculty", "postdoc"]})) == ["a", "b", "c"]
    assert sorted(_slugs({"role": ["postdoc"], "organization": ["rice"]})) == ["b"]


def test_people_are_found_by_where_they_publish(db):
    iclr = factories.venue(slug="iclr")
    author = factories.person(slug="author")
    factories.person(slug="other")
    factories.publication(venue=iclr, authors=[author])
    factories.publication(venue=iclr, authors=[author])

    # Each member once, however many papers match.
    assert _slugs({"venue": ["iclr"]}) == ["author"]


def test_an_unknown_value_is_a_form_error_not_a_silent_match_all(db):
    factories.person()
    filterset = PersonFilter({"role": ["wizard"]}, queryset=Person.objects.all())

    assert not filterset.is_valid()
    assert "role" in filterset.errors


def test_name_sort_orders_by_family_then_given_name(db):
    factories.person(slug="z", family_name="Zhu", given_name="Lei")
    factories.person(slug="a", family_name="Abe", given_name="Kei")

    assert _slugs({"sort": "name"}) == ["a", "z"]


def test_role_facet_counts_ignore_their_own_selection(db):
    factories.person(role="faculty")
    factories.person(role="postdoc")
    factories.person(role="postdoc")
    filterset = PersonFilter({"role": ["faculty"]}, queryset=Person.objects.all())

    (role,) = filterset.facet_results(["role"])

    counts = {o.value: (o.count, o.selected) for o in role.options}
    assert counts == {"postdoc": (2, False), "faculty": (1, True)}


def test_orcid_finds_the_member_by_the_id_or_its_link(db):
    factories.person(slug="josiah", orcid="0000-0002-1825-0097")
    factories.person(slug="other")

    assert _slugs({"orcid": "0000-0002-1825-0097"}) == ["josiah"]
    assert _slugs({"orcid": "https://orcid.org/0000000218250097"}) == ["josiah"]
    assert _slugs({"orcid": "0000-0001-5109-3700"}) == []


def test_an_orcid_with_a_wrong_check_digit_is_an_error(db):
    filterset = PersonFilter(
        {"orcid": "0000-0002-1825-0098"}, queryset=Person.objects.all()
    )

    assert not filterset.is_valid()
    assert "check digit" in str(filterset.errors["orcid"])
