import re

import pytest
from django.core.exceptions import ValidationError

from people.network import coauthor_picture, group_picture
from tests import factories


@pytest.fixture
def lab(db):
    """Ada wrote three papers with Bo (a member), two with Carol (not a member,
    printed two ways) and one alone; Bo and Carol wrote one of them together."""
    ada = factories.person(display_name="Ada Lovelace", slug="ada")
    bo = factories.person(display_name="Bo Member", slug="bo")
    cy = factories.person(display_name="Cy Member", slug="cy")
    factories.publication(authors=[ada, bo, "Carol Outsider"], year=2021)
    factories.publication(authors=[ada, bo], year=2022)
    factories.publication(authors=[bo, ada, "carol  OUTSIDER"], year=2022)
    factories.publication(authors=[ada], year=2023)
    factories.publication(authors=[bo, cy], year=2024)
    return ada, bo, cy


def test_coauthors_are_sized_by_shared_papers_with_names_merged(
    lab, django_assert_num_queries
):
    ada, bo, _ = lab
    with django_assert_num_queries(1):
        picture = coauthor_picture(ada)
    assert [(n.label, n.weight, n.url) for n in picture.people] == [
        ("Bo Member", 3, "/people/bo/"),
        ("Carol Outsider", 2, ""),
    ]
    assert picture.hidden == 0
    middle = picture.network.nodes[0]
    assert (middle.label, middle.center, middle.url) == ("Ada Lovelace", True, "")
    # Bo and Carol wrote two of Ada's papers together; Cy is nobody's co-author here.
    faint = [(e.source, e.target, e.weight) for e in picture.network.edges if e.faint]
    assert faint == [(f"m{bo.pk}", "n:carol outsider", 2)]
    assert "Bo Member (3), Carol Outsider (2)" in picture.description


def test_coauthors_beyond_the_limit_are_counted_not_drawn(lab):
    ada, *_ = lab
    picture = coauthor_picture(ada, limit=1)
    assert [n.label for n in picture.people] == ["Bo Member"]
    assert picture.hidden == 1 and len(picture.network.nodes) == 2


def test_a_member_without_coauthors_has_no_picture(db):
    loner = factories.person()
    factories.publication(authors=[loner])
    assert coauthor_picture(loner) is None


def test_group_network_draws_the_most_published_members_and_their_links(
    lab, django_assert_num_queries
):
    with django_assert_num_queries(3):
        picture = group_picture()
    assert [(m.label, m.weight) for m in picture.members] == [
        ("Ada Lovelace", 4),
        ("Bo Member", 4),
        ("Cy Member", 1),
    ]
    assert picture.links == [
        ("Ada Lovelace", "Bo Member", 3),
        ("Bo Member", "Cy Member", 1),
    ]
    assert (picture.hidden_members, picture.hidden_links) == (0, 0)


def test_group_network_is_capped_and_says_what_it_left_out(lab):
    picture = group_picture(members=2, max_links=0)
    assert sorted(m.label for m in picture.members) == ["Ada Lovelace", "Bo Member"]
    assert (picture.hidden_members, picture.hidden_links) == (1, 1)
    assert picture.links == [] and picture.network.edges == []


def test_network_page_links_every_member_and_is_cached(
    client, lab, django_assert_max_num_queries
):
    with django_assert_max_num_queries(4):
        html = client.get("/people/network/").content.decode()
    svg = html[html.index("<svg") : html.index("</svg>")]
    for slug in ("ada", "bo", "cy"):
        assert f'<a href="/people/{slug}/">' in svg
    assert 'role="group"' in svg and "<desc" in svg
    table = html[html.index("<details") :]
    assert re.search(r"Ada Lovelace</a></th><td>4</td>", table)
    with django_assert_max_num_queries(0):
        assert client.get("/people/network/").content.decode() == html


def test_network_page_says_when_no_two_members_share_a_paper(client, db):
    for name in ("Ada Lovelace", "Bo Member"):
        factories.publication(authors=[factories.person(display_name=name)])
    html = client.get("/people/network/").content.decode()
    caption = html[html.index("<figcaption") : html.index("</figcaption>")]
    assert "No two of them have written a paper together yet" in caption
    assert "<svg" in html


def test_network_page_with_links_does_not_say_there_are_none(client, lab):
    html = client.get("/people/network/").content.decode()
    assert "No two of them have written a paper together yet" not in html


def test_network_page_without_papers_says_so(client, db):
    factories.person()
    html = client.get("/people/network/").content.decode()
    assert "No member has a publication yet." in html and "<svg" not in html


def test_profile_draws_its_coauthors_with_members_linked(client, lab):
    html = client.get("/people/ada/").content.decode()
    section = html[html.index('<section id="coauthors"') :]
    section = section[: section.index("</section>")]
    assert '<a href="/people/bo/">' in section
    assert "<title>Carol Outsider: 2 shared papers</title>" in section
    assert '<a href="/people/network/">' in section
    assert '<a href="#coauthors">Co-authors</a>' in html


def test_network_is_no_member_slug(db):
    member = factories.person(slug="network")
    with pytest.raises(ValidationError) as error:
        member.full_clean()
    assert "slug" in error.value.message_dict
