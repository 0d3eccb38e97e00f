import datetime
import re

import pytest

from tests import factories


def test_people_page_groups_members_by_role(
    client, demo_lab, django_assert_max_num_queries
):
    # The count, the page, the facet counts kept on write, the names of the
    # topics, organisations and venues they show, and the group record.
    with django_assert_max_num_queries(7):
        response = client.get("/people/")
    html = response.content.decode()
    assert response.status_code == 200
    results = html[html.index('class="results"') :]
    headings = re.findall(r'<h2 id="group-\d+">([^<]+)</h2>', results)
    assert headings == ["Senior research scientist", "Researcher", "PhD student"]
    for slug in ["lei-zhu", "jingwei-zuo", "s-zheng", "zhongzhu-zhou"]:
        assert f'href="/people/{slug}/"' in html


@pytest.mark.parametrize(
    ("slug", "facts"),
    [
        (
            "lei-zhu",
            [
                "祝磊",
                "Huawei Noah",
                "Rynson W.H. Lau",
                "Rank 1/102",
                "RelayAttention",
                "BiFormer",
                "Efficient Attention Mechanisms",
                "Sep 19, 2025",
                "DeepDiverV2",
            ],
        ),
        (
            "jingwei-zuo",
            [
                "左京伟",
                "(Chris)",
                "/dzwaw Jeeng-way/",
                "Kirkland, Washington",
                "Linfeng Song",
                "Streaming DiLoCo",
                "MaxText #4759",
                "Dean",
                "Artifact evaluator",
                "PPoPP 2026",
                "Tennis",
                "Photography",
                "Sep 2026 – Present",
            ],
        ),
        (
            "s-zheng",
            [
                "New York University",
                "Shengjie Wang",
                "ToMA",
                "HilbertA",
                "Co-First Author",
                "Tencent",
                "SenseTime",
                "Triton",
                "Sep 2025 – Present",
            ],
        ),
        (
            "zhongzhu-zhou",
            [
                "(Charlie)",
                "/ZHONG-JOO JOH/",
                "Turbo Team",
                "Together AI",
                "Ben Athiwaratkun",
                "Room 408",
                "No feeling is final",
                "Rainer Maria Rilke",
                "OSCAR",
                "KITTY",
                "4.0/4.0",
                "COMP3520",
                "Fall 2023",
                "Web Chair",
                "B8293G",
                "National Scholarship",
                "Cornell RL Seminar",
            ],
        ),
    ],
)
def test_profile_shows_the_facts_of_its_source(client, demo_lab, slug, facts):
    response = client.get(f"/people/{slug}/")
    assert response.status_code == 200
    html = response.content.decode()
    missing = [fact for fact in facts if fact not in html]
    assert not missing


def test_profile_marks_co_first_authors_and_links_members(client, demo_lab):
    html = client.get("/people/s-zheng/").content.decode()
    assert '<span class="author">W. Lu</span>*' in html
    assert '<a class="author member" href="/people/s-zheng/">S. Zheng</a>*' in html


def test_profile_query_count_does_not_grow_with_papers(
    client, db, django_assert_max_num_queries
):
    member = factories.person()
    for _ in range(3):
        factories.publication(authors=[member, "Someone Else"])
    # The first read after a write also recomputes the member's similar people.
    with django_assert_max_num_queries(45) as few:
        client.get(member.get_absolute_url())
    for _ in range(20):
        factories.publication(authors=[member, "Someone Else", "A Third"])
    with django_assert_max_num_queries(len(few.captured_queries)):
        response = client.get(member.get_absolute_url())
    assert response.status_code == 200


def test_profile_is_rendered_once_until_the_next_write(
    client, db, django_assert_max_num_queries
):
    person = factories.person(slug="cached-member")
    person.links.create(kind="homepage", url="https://example.org/me")
    first = client.get("/people/cached-member/").content.decode()
    with django_assert_max_num_queries(1):  # the member; the sections are cached
        again = client.get("/people/cached-member/").content.decode()
    assert again == first and "https://example.org/me" in again
    person.awards.create(title="Best Paper Award", year=2025)
    html = client.get("/people/cached-member/").content.decode()
    assert "Best Paper Award" in html
    # JSON-LD carries absolute addresses, so each host name has its own copy.
    other = client.get("/people/cached-member/", HTTP_HOST="127.0.0.1")
    assert '"url": "http://127.0.0.1/people/cached-member/"' in other.content.decode()


def test_unknown_person_is_a_404(client, db):
    assert client.get("/people/nobody-here/").status_code == 404


def test_markdown_bio_is_sanitised(client, db):
    member = factories.person(
        bio="Hello <script>alert(1)</script> [x](javascript:alert(2)) **bold**"
    )
    html = client.get(member.get_absolute_url()).content.decode()
    assert "<script>alert(1)" not in html
    assert "javascript:" not in html
    assert "<strong>bold</strong>" in html


def test_profile_header_names_the_script_of_a_native_name_and_a_title_once(
    client, demo_lab
):
    zuo = client.get("/people/jingwei-zuo/").content.decode()
    zhou = client.get("/people/zhongzhu-zhou/").content.decode()
    assert '<p class="native-name" lang="zh">左京伟</p>' in zuo
    assert '<p class="role">Senior research scientist</p>' in zhou


def test_profile_shows_the_citations_of_the_members_papers_in_all(client, db):
    member = factories.person()
    factories.publication(
        authors=[member],
        cited_by_count=30,
        citations_retrieved_at="2025-11-02T00:00:00Z",
    )
    factories.publication(
        authors=[member, "Co Author"],
        cited_by_count=12,
        citations_retrieved_at="2025-12-01T00:00:00Z",
    )
    factories.publication(authors=[member])
    factories.publication(authors=["Someone Else"], cited_by_count=1000)

    html = client.get(member.get_absolute_url()).content.decode()

    assert "Cited 42 times in all, as OpenAlex counted on 1 December 2025." in html


def test_profile_without_counts_says_nothing_of_citations(client, db):
    member = factories.person()
    factories.publication(authors=[member])

    assert "Cited" not in client.get(member.get_absolute_url()).content.decode()


@pytest.mark.parametrize("published", [False, True])
def test_profile_shows_addresses_only_when_the_member_publishes_them(
    client, db, published
):
    factories.person(
        slug="ada",
        email="ada@example.org",
        secondary_email="ada.two@example.org",
        publish_email=published,
    )
    html = client.get("/people/ada/").content.decode()
    assert ("ada [at] example [dot] org" in html) is published
    assert ("ada.two [at] example [dot] org" in html) is published
    assert ("<dt>Email</dt>" in html) is published
    # Never in plain form, JSON-LD included.
    assert "@example.org" not in html


def test_profile_links_an_open_source_project_to_its_paper(client, db):
    member = factories.person()
    paper = factories.publication(title="DuoAttention", authors=[member])
    member.open_source.create(project="DuoAttention", publication=paper)
    html = client.get(member.get_absolute_url()).content.decode()
    card = html[html.index('id="open-source"') :]
    assert f'Publication: <a href="{paper.get_absolute_url()}">DuoAttention</a>' in card


@pytest.mark.parametrize(
    "given, meta",
    [
        ({"start_year": 2025}, "2025"),
        ({"role": "Contributor", "start_year": 2026}, "Contributor · 2026"),
        ({"organization": "MIT Han Lab"}, "MIT Han Lab"),
        (
            {"organization": "OpenBMB", "role": "Core contributor", "start_year": 2023},
            "OpenBMB · Core contributor · 2023",
        ),
    ],
)
def test_a_project_card_joins_only_the_parts_the_source_gives(client, db, given, meta):
    member = factories.person()
    member.open_source.create(project="DeepDiverV2", **given)
    html = client.get(member.get_absolute_url()).content.decode()
    assert f'<p class="meta">{meta}</p>' in html


def test_a_project_card_with_no_parts_has_no_meta_line(client, db):
    member = factories.person()
    member.open_source.create(project="DeepDiverV2")
    html = client.get(member.get_absolute_url()).content.decode()
    card = html[
        html.index('id="open-source"') : html.index(
            "</section>", html.index('id="open-source"')
        )
    ]
    assert 'class="meta"' not in card and "·" not in card


def test_profile_says_where_the_sources_disagree_on_a_paper(client, demo_lab):
    html = client.get("/people/jingwei-zuo/").content.decode()
    listed = html[html.index('<ul class="publication-list">') :]
    listed = listed[: listed.index("</ul>")]
    (item,) = [
        li for li in listed.split('<li class="publication">') if "DuoAttention:" in li
    ]
    assert (
        '<p class="pub-conflict">The source disagrees with itself on the venue: '
        "Publication list: ICLR 2025; "
    ) in item
    assert "Open source (DuoAttention): published at NeurIPS 2025.</p>" in item


def test_profile_rows_join_only_the_parts_the_source_gives(client, db):
    member = factories.person(team="Turbo Team", organization=None)
    member.experience.create(role="Intern", location="Seattle, WA, USA")
    member.education.create(
        degree="B.Eng.",
        organization=factories.organization(),
        start_date=datetime.date(2021, 9, 1),
    )
    html = client.get(member.get_absolute_url()).content.decode()
    assert '<p class="org">Turbo Team</p>' in html
    assert '<p class="when">Seattle, WA, USA</p>' in html
    assert re.search(r'<p class="when">[^<·]*2021[^<·]*</p>', html)
    profile = html[html.index('<article class="profile">') : html.index("</article>")]
    assert '"> · ' not in profile and " · </" not in profile
