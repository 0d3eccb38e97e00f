import json
import re
import xml.etree.ElementTree as ET
from html.parser import HTMLParser

import pytest

from core.models import Lab, Topic
from events.models import Event
from people.models import Person
from publications.models import Publication
from tests import factories

XSS = '</script><script>alert("x")</script><!--'


class _Head(HTMLParser):
    """The meta tags, JSON-LD blocks and scripts of a page, as a browser reads them."""

    def __init__(self) -> None:
        super().__init__()
        self.meta: list[tuple[str, str]] = []
        self.jsonld: list[str] = []
        self.scripts: list[dict] = []
        self._in_jsonld = False

    def handle_starttag(self, tag: str, attrs: list) -> None:
        attrs = dict(attrs)
        if tag == "meta" and "content" in attrs:
            key = attrs.get("property") or attrs.get("name")
            if key:
                self.meta.append((key, attrs["content"]))
        if tag == "script":
            self.scripts.append(attrs)
            self._in_jsonld = attrs.get("type") == "application/ld+json"
            if self._in_jsonld:
                self.jsonld.append("")

    def handle_endtag(self, tag: str) -> None:
        if tag == "script":
            self._in_jsonld = False

    def handle_data(self, data: str) -> None:
        if self._in_jsonld:
            self.jsonld[-1] += data


def _page(client, url: str) -> _Head:
    response = client.get(url)
    assert response.status_code == 200
    head = _Head()
    head.feed(response.content.decode())
    return head


def _meta(head: _Head, key: str) -> list[str]:
    return [content for name, content in head.meta if name == key]


def _jsonld(head: _Head) -> dict:
    assert len(head.jsonld) == 1
    return json.loads(head.jsonld[0])


# -- JSON-LD -----------------------------------------------------------------------


def test_profile_describes_the_member_as_a_person(client, demo_lab):
    data = _jsonld(_page(client, "/people/jingwei-zuo/"))

    assert data["@context"] == "https://schema.org"
    assert data["@type"] == "Person"
    assert data["name"] == "Jingwei Zuo"
    assert data["url"] == "http://testserver/people/jingwei-zuo/"
    assert data["alternateName"] == ["左京伟", "Chris"]
    assert data["jobTitle"] == "2nd-year Ph.D., Computer Science"
    assert data["affiliation"]["name"] == "Rice University"
    # The doctoral study at Rice is under way ("2025.09-Present"): not alumni.
    assert [org["name"] for org in data["alumniOf"]] == [
        "Tsinghua University",
        "Northeastern University",
    ]
    assert "Sparse attention" in data["knowsAbout"]
    # The seed names an Instagram handle without an address: no sameAs is made up.
    assert "sameAs" not in data


def test_profile_metadata_never_carries_an_email_address(client, demo_lab):
    response = client.get("/people/zhongzhu-zhou/")
    head = _Head()
    head.feed(response.content.decode())

    data = _jsonld(head)
    assert "email" not in json.dumps(data).lower()
    assert "@sydney.edu.au" not in response.content.decode()


def test_publication_lists_its_authors_in_print_order(client, demo_lab):
    data = _jsonld(_page(client, "/publications/duoattention/"))

    assert data["@type"] == "ScholarlyArticle"
    assert data["headline"].startswith("DuoAttention")
    authors = data["author"]
    assert len(authors) == 8
    assert all(a["@type"] == "Person" for a in authors)
    assert [a["name"] for a in authors][:3] == [
        "Guangxuan Xiao",
        "Jiaming Tang",
        "Jingwei Zuo",
    ]
    assert authors[2]["url"] == "http://testserver/people/jingwei-zuo/"
    assert [a for a in authors if "url" in a] == [authors[2]]
    assert data["datePublished"] == "2025"
    # Seed 002 gives ICLR 2025 and NeurIPS 2025: no venue, a comment naming both.
    assert "isPartOf" not in data
    assert "ICLR 2025" in data["comment"] and "NeurIPS 2025" in data["comment"]
    assert "creditText" not in data


def test_a_work_under_review_has_no_date_or_venue(client, demo_lab):
    data = _jsonld(_page(client, "/publications/hilberta/"))
    assert "datePublished" not in data and "isPartOf" not in data
    assert data["creativeWorkStatus"] == "Under review at ICLR 2026"

    head = _page(client, "/publications/hilberta/")
    assert not _meta(head, "citation_publication_date")
    assert not _meta(head, "citation_conference_title")


def test_a_partial_author_list_is_not_credited_as_the_whole(client, demo_lab):
    data = _jsonld(_page(client, "/publications/hilberta/"))
    assert "and others" in data["creditText"]
    assert "only some of the authors" in data["creditText"]


def test_publication_points_at_its_doi_and_arxiv_copies(client, db):
    venue = factories.venue(name="Journal of Tests", kind="journal")
    factories.publication(
        slug="paper",
        kind="journal_article",
        venue=venue,
        month=3,
        doi="10.1000/xyz",
        arxiv_id="2401.00001",
        authors=["A. Author"],
    )

    data = _jsonld(_page(client, "/publications/paper/"))

    assert data["sameAs"] == [
        "https://doi.org/10.1000/xyz",
        "https://arxiv.org/abs/2401.00001",
    ]
    assert data["datePublished"] == "2024-03"
    assert data["isPartOf"]["@type"] == "Periodical"


def test_preprints_name_their_server_as_publisher(client, db):
    arxiv = factories.venue(name="arXiv", kind="preprint")
    factories.publication(slug="pre", kind="preprint", venue=arxiv)

    data = _jsonld(_page(client, "/publications/pre/"))

    assert data["publisher"]["name"] == "arXiv"
    assert "isPartOf" not in data


def test_event_page_describes_an_event(client, db):
    speaker = factories.person(slug="ada", display_name="Ada Lovelace")
    event = factories.event(
        slug="talk",
        kind="talk",
        title="On engines",
        location="London",
        host="Royal Society",
        description="A *talk*.",
    )
    event.people.add(speaker)

    data = _jsonld(_page(client, "/events/talk/"))

    assert data["@type"] == "Event"
    assert data["name"] == "On engines"
    assert data["startDate"] == event.date.isoformat()
    assert data["location"] == {"@type": "Place", "name": "London", "address": "London"}
    assert data["organizer"] == {"@type": "Organization", "name": "Royal Society"}
    assert data["performer"] == [
        {
            "@type": "Person",
            "name": "Ada Lovelace",
            "url": "http://testserver/people/ada/",
        }
    ]
    assert data["description"] == "A talk."


def test_month_precision_event_dates_say_no_more_than_is_known(client, demo_lab):
    event = Event.objects.filter(date_precision="month").first()

    data = _jsonld(_page(client, event.get_absolute_url()))

    assert re.fullmatch(r"\d{4}-\d{2}", data["startDate"])


# -- hostile text ------------------------------------------------------------------


def test_hostile_text_cannot_leave_the_json_ld_or_the_meta_tags(client, db):
    topic = factories.topic(name=f"Topic {XSS}")
    person = factories.person(
        slug="mallory",
        display_name=f"Mallory {XSS}",
        headline=f'"><img src=x onerror=alert(1)> {XSS}',
        native_name="</SCRIPT>",
    )
    person.topics.add(topic)

    response = client.get("/people/mallory/")
    html = response.content.decode()
    head = _Head()
    head.feed(html)

    # Only the page's own script elements: the JSON-LD block and nothing injected.
    assert [s.get("type") for s in head.scripts] == ["application/ld+json"]
    assert "<script>alert" not in html
    assert "<img src=x" not in html
    data = _jsonld(head)
    assert data["name"] == f"Mallory {XSS}"
    assert data["alternateName"] == ["</SCRIPT>"]
    assert data["knowsAbout"] == [f"Topic {XSS}"]
    assert _meta(head, "og:title") == [f"Mallory {XSS}"]
    assert _meta(head, "twitter:description")[0].startswith('"><img src=x')


def test_hostile_publication_text_stays_inside_its_tags(client, db):
    factories.publication(slug="evil", title=f"Title {XSS}", authors=[f"Eve {XSS}"])

    html = client.get("/publications/evil/").content.decode()
    head = _Head()
    head.feed(html)

    assert _meta(head, "citation_title") == [f"Title {XSS}"]
    assert _meta(head, "citation_author") == [f"Eve {XSS}"]
    assert _jsonld(head)["author"][0]["name"] == f"Eve {XSS}"
    assert "<script>alert" not in html


# -- Google Scholar ------------------------------------------------------------------


def test_scholar_tags_list_every_author_in_order(client, demo_lab):
    head = _page(client, "/publications/duoattention/")
    publication = Publication.objects.get(slug="duoattention")

    names = [key for key, _ in head.meta if key.startswith("citation_")]
    assert names[0] == "citation_title"
    assert _meta(head, "citation_title") == [publication.title]
    assert _meta(head, "citation_author") == [
        a.name for a in publication.authorships.order_by("position")
    ]
    assert _meta(head, "citation_publication_date") == ["2025"]
    # The sources disagree on the venue (ICLR 2025, NeurIPS 2025): Scholar reads
    # one, so none is given.
    assert not _meta(head, "citation_conference_title")
    assert not _meta(head, "citation_journal_title")


def test_scholar_tags_for_a_journal_article_with_doi_and_pdf(client, db):
    venue = factories.venue(name="Journal of Tests", kind="journal")
    publication = factories.publication(
        slug="paper",
        kind="journal_article",
        venue=venue,
        month=7,
        doi="10.1000/xyz",
        volume="12",
        number="3",
        pages="101--120",
        authors=["A. Author", "B. Author"],
    )
    publication.links.create(kind="pdf", url="https://example.org/paper.pdf")

    head = _page(client, "/publications/paper/")

    assert _meta(head, "citation_journal_title") == ["Journal of Tests"]
    assert _meta(head, "citation_publication_date") == ["2024/07"]
    assert _meta(head, "citation_doi") == ["10.1000/xyz"]
    assert _meta(head, "citation_volume") == ["12"]
    assert _meta(head, "citation_issue") == ["3"]
    assert _meta(head, "citation_firstpage") == ["101"]
    assert _meta(head, "citation_lastpage") == ["120"]
    assert _meta(head, "citation_pdf_url") == ["https://example.org/paper.pdf"]


def test_arxiv_papers_offer_the_arxiv_pdf(client, db):
    factories.publication(slug="pre", kind="preprint", arxiv_id="2401.00001")

    head = _page(client, "/publications/pre/")

    assert _meta(head, "citation_arxiv_id") == ["2401.00001"]
    assert _meta(head, "citation_pdf_url") == ["https://arxiv.org/pdf/2401.00001"]


# -- OpenGraph and Twitter ------------------------------------------------------------


def test_every_page_has_social_cards_with_site_defaults(client, db):
    Lab.objects.create(name="Test Group", description="What the group does.")
    head = _page(client, "/people/")

    assert _meta(head, "og:site_name") == ["Test Group"]
    assert _meta(head, "og:title") == ["Test Group"]
    assert _meta(head, "og:description") == ["What the group does."]
    assert _meta(head, "og:type") == ["website"]
    assert _meta(head, "og:url") == ["http://testserver/people/"]
    assert _meta(head, "twitter:card") == ["summary"]
    assert _meta(head, "twitter:title") == ["Test Group"]


def test_without_a_lab_record_the_cards_name_no_site(client, db):
    head = _page(client, "/people/")

    assert _meta(head, "og:site_name") == []
    assert _meta(head, "og:title") == []
    assert _meta(head, "og:type") == ["website"]


def test_profile_publication_and_event_pages_override_the_cards(client, demo_lab):
    profile = _page(client, "/people/lei-zhu/")
    paper = _page(client, "/publications/toma/")
    event = _page(client, Event.objects.first().get_absolute_url())

    assert _meta(profile, "og:type") == ["profile"]
    assert _meta(profile, "og:title") == ["Lei Zhu"]
    assert _meta(profile, "profile:first_name") == ["Lei"]
    assert _meta(paper, "og:type") == ["article"]
    assert _meta(paper, "og:title") == [
        "ToMA: Token Merge with Attention for Diffusion Models"
    ]
    assert _meta(event, "og:title") == [Event.objects.first().title]


# -- citations -------------------------------------------------------------------------


def test_publication_page_offers_apa_and_bibtex_with_copy_buttons(client, demo_lab):
    html = client.get("/publications/toma/").content.decode()

    assert (
        '<pre class="citation-text" id="cite-apa">Lu, W., Zheng, S., Xia, Y., '
        "&amp; Wang, S. (2025). ToMA: Token Merge with Attention for Diffusion "
        "Models. International Conference on Machine Learning" in html
    )
    assert '<pre class="bibtex citation-text" id="bibtex">@inproceedings' in html
    # Without JavaScript the buttons stay hidden; the text is there to select.
    buttons = re.findall(r'<button [^>]*class="copy-button"[^>]*>', html)
    assert len(buttons) == 2
    assert all(button.endswith(" hidden>") for button in buttons)
    assert 'aria-live="polite"' in html
    assert '<script src="/static/js/copy.js" defer></script>' in html


# -- sitemap and robots ---------------------------------------------------------------


def test_sitemap_lists_people_publications_events_topics_and_pages(client, demo_lab):
    response = client.get("/sitemap.xml")
    root = ET.fromstring(response.content)
    ns = {"s": "http://www.sitemaps.org/schemas/sitemap/0.9"}
    locations = {loc.text for loc in root.findall("s:url/s:loc", ns)}

    base = "http://testserver"
    assert {f"{base}/", f"{base}/people/", f"{base}/publications/"} <= locations
    assert f"{base}/events/" in locations
    assert f"{base}/people/lei-zhu/" in locations
    assert f"{base}/publications/duoattention/" in locations
    assert f"{base}/topics/sparse-attention/" in locations
    some_event = Event.objects.first()
    assert f"{base}{some_event.get_absolute_url()}" in locations
    expected = sum(
        model.objects.count() for model in (Person, Publication, Event, Topic)
    )
    assert len(locations) == 4 + expected


def test_robots_allows_all_but_the_admin_and_names_the_sitemap(client, db):
    response = client.get("/robots.txt")

    assert response["Content-Type"].startswith("text/plain")
    lines = response.content.decode().splitlines()
    assert "User-agent: *" in lines
    assert "Disallow: /admin/" in lines
    assert "Sitemap: http://testserver/sitemap.xml" in lines


# -- email addresses ------------------------------------------------------------------


def test_no_html_page_shows_an_email_address(client, demo_lab):
    addresses = [
        address
        for pair in Person.objects.values_list("email", "secondary_email")
        for address in pair
        if address
    ]
    urls = ["/", "/people/", "/publications/", "/events/", "/search/?q=zhou"]
    urls += [p.get_absolute_url() for p in Person.objects.all()]
    urls += [e.get_absolute_url() for e in Event.objects.all()]
    urls += [p.get_absolute_url() for p in Publication.objects.all()]

    for url in urls:
        html = client.get(url).content.decode()
        for address in addresses:
            assert address not in html, url
    # The demo's members do not publish their addresses: not even obfuscated.
    profile = client.get("/people/jingwei-zuo/").content.decode()
    assert "jingwei.zuo [at] rice [dot] edu" not in profile
    Person.objects.filter(slug="jingwei-zuo").update(publish_email=True)
    profile = client.get("/people/jingwei-zuo/").content.decode()
    assert "jingwei.zuo [at] rice [dot] edu" in profile


@pytest.mark.parametrize("kind", ["person", "publication", "event"])
def test_metadata_adds_no_queries_as_records_grow(
    client, db, kind, django_assert_max_num_queries
):
    def page(size: int) -> str:
        people = [factories.person() for _ in range(size)]
        topic = factories.topic()
        if kind == "person":
            person = people[0]
            person.topics.add(topic)
            for _ in range(size):
                person.links.create(kind="homepage", url="https://example.org/")
                person.education.create(
                    organization=factories.organization(), degree="B.S."
                )
            return person.get_absolute_url()
        if kind == "publication":
            publication = factories.publication(authors=people)
            publication.topics.add(topic)
            return publication.get_absolute_url()
        event = factories.event()
        event.people.set(people)
        event.topics.add(topic)
        return event.get_absolute_url()

    small, large = page(1), page(8)
    with django_assert_max_num_queries(40) as baseline:
        client.get(small)
    with django_assert_max_num_queries(len(baseline.captured_queries)):
        client.get(large)


def test_ids_are_same_as_links_and_property_values(client, db):
    member = factories.person(
        slug="josiah", orcid="0000-0002-1825-0097", openalex_id="A5023888391"
    )
    member.links.create(kind="orcid", url="https://orcid.org/0000-0002-1825-0097")
    factories.publication(
        slug="paper", doi="10.1000/xyz", openalex_id="W2741809807", authors=[member]
    )

    person = _jsonld(_page(client, "/people/josiah/"))
    paper = _jsonld(_page(client, "/publications/paper/"))

    assert person["sameAs"] == [
        "https://orcid.org/0000-0002-1825-0097",
        "https://openalex.org/A5023888391",
    ]
    assert person["identifier"][0] == {
        "@type": "PropertyValue",
        "propertyID": "ORCID",
        "value": "0000-0002-1825-0097",
        "url": "https://orcid.org/0000-0002-1825-0097",
    }
    assert paper["sameAs"] == [
        "https://doi.org/10.1000/xyz",
        "https://openalex.org/W2741809807",
    ]
    assert [i["propertyID"] for i in paper["identifier"]] == ["DOI", "OpenAlex"]


def test_an_imported_abstract_is_the_works_abstract(client, db):
    factories.publication(slug="paper", summary="Ours.", abstract="Theirs.")

    assert _jsonld(_page(client, "/publications/paper/"))["abstract"] == "Theirs."
