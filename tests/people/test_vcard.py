from icalendar import Component
from icalendar.parser import Contentlines

from people.models import Person
from tests import factories


def _properties(content: bytes) -> list[tuple[str, str]]:
    """(name, unescaped value) of every line, after unfolding, as a client reads."""
    lines = Contentlines.from_ical(content.decode("utf-8"))
    return [(line.parts()[0], line.parts()[2]) for line in lines if line]


def _values(content: bytes, name: str) -> list[str]:
    return [value for key, value in _properties(content) if key == name]


def test_vcard_download_describes_the_member(client, demo_lab):
    response = client.get("/people/jingwei-zuo/vcard.vcf")

    assert response.status_code == 200
    assert response["Content-Type"] == "text/vcard; charset=utf-8"
    assert response["Content-Disposition"] == ('attachment; filename="jingwei-zuo.vcf"')
    card = Component.from_ical(response.content)
    assert card.name == "VCARD"
    assert card.errors == []
    assert card["N"].fields[:2] == ("Zuo", "Jingwei")
    assert card["ORG"].name == "Rice University"
    content = response.content
    assert _properties(content)[:2] == [("BEGIN", "VCARD"), ("VERSION", "4.0")]
    assert _values(content, "FN") == ["Jingwei Zuo"]
    assert _values(content, "NICKNAME") == ["Chris"]
    assert _values(content, "TITLE") == ["2nd-year Ph.D., Computer Science"]
    # The member does not publish the address, and the Instagram link has none.
    assert _values(content, "EMAIL") == []
    assert _values(content, "URL") == ["http://testserver/people/jingwei-zuo/"]
    assert _values(content, "NOTE") == ["Systems for AI, and AI for systems"]


def test_vcard_carries_both_addresses_of_a_member_who_publishes_them(client, demo_lab):
    Person.objects.filter(slug="zhongzhu-zhou").update(publish_email=True)
    content = client.get("/people/zhongzhu-zhou/vcard.vcf").content

    assert _values(content, "EMAIL") == [
        "zhongzhu.zhou@sydney.edu.au",
        "zhouzhzh8@mail2.sysu.edu.cn",
    ]


def test_vcard_escapes_separators_and_folds_long_lines(client, db):
    org = factories.organization(name="Lab; of Things, Inc.")
    factories.person(
        slug="ada",
        display_name="Ada, Countess; of Lovelace",
        given_name="Ada",
        family_name="King, Lovelace",
        position_title="Analyst\\engineer",
        headline="Notes on the engine " * 10,
        organization=org,
        team="Engines",
    )

    content = client.get("/people/ada/vcard.vcf").content

    assert content.endswith(b"END:VCARD\r\n")
    assert all(len(line) <= 75 for line in content.split(b"\r\n"))
    assert _values(content, "FN") == ["Ada, Countess; of Lovelace"]
    assert _values(content, "TITLE") == ["Analyst\\engineer"]
    assert _values(content, "NOTE") == ["Notes on the engine " * 10]
    card = Component.from_ical(content)
    assert card["N"].fields[:2] == ("King, Lovelace", "Ada")
    assert card["ORG"].name == "Lab, of Things, Inc."
    assert card["ORG"].units == ("Engines",)


def test_vcard_of_a_member_without_organisation_or_links(client, db):
    factories.person(slug="ada", position_title="")

    content = client.get("/people/ada/vcard.vcf").content

    assert _values(content, "TITLE") == ["PhD student"]
    assert _values(content, "URL") == ["http://testserver/people/ada/"]
    assert not _values(content, "ORG")
    assert not _values(content, "EMAIL")


def test_vcard_of_an_unknown_member_is_not_found(client, db):
    assert client.get("/people/nobody/vcard.vcf").status_code == 404


def test_profile_links_the_vcard_and_calendar(client, demo_lab):
    html = client.get("/people/lei-zhu/").content.decode()

    assert 'href="/people/lei-zhu/vcard.vcf"' in html
    assert 'href="/people/lei-zhu/calendar.ics"' in html


def test_vcard_of_a_member_who_does_not_publish_carries_no_address(client, db):
    factories.person(
        slug="ada", email="ada@example.org", secondary_email="ada.two@example.org"
    )
    content = client.get("/people/ada/vcard.vcf").content
    assert _values(content, "EMAIL") == []
    assert b"example.org" not in content
