"""Hostile text in any field that reaches a page, a feed or the API stays inert data."""

import datetime
import itertools
import json
import re
import xml.etree.ElementTree as ET
from collections.abc import Callable
from html.parser import HTMLParser
from types import SimpleNamespace

import icalendar
import pytest
from django.apps import apps
from django.core.exceptions import ValidationError
from django.db import models
from django.utils import timezone
from icalendar.parser import Contentlines

from core.models import ExternalLink, Organization, Topic
from events.models import Event, EventLink
from people.models import (
    Award,
    ContributionLink,
    Education,
    Experience,
    ExperienceLink,
    Interest,
    OpenSourceContribution,
    Person,
    PersonLink,
    ResearchArea,
    Service,
    Skill,
    Teaching,
)
from publications.models import Authorship, Publication, PublicationLink, Venue
from search.indexing import deferred

PAYLOADS = {
    "script": "<script>alert(1)</script>",
    "img-onerror": "<img src=x onerror=alert(1)>",
    "svg-onload": '"><svg onload=alert(1)>',
    "markdown-javascript-link": "[x](javascript:alert(1))",
    "a-javascript": '<a href="javascript:alert(1)">x</a>',
    "script-breakout": "</script><script>alert(1)</script>",
    "iframe": '<iframe src="https://evil.example/"></iframe>',
    "style": "<style>*{display:none}</style>",
    "template": "{{ 7*7 }}{% debug %}${7*7}#{7*7}",
    "data-url": "[d](data:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg==) "
    '<object data="data:text/html,x">',
    "double-encoded": "&lt;script&gt;alert(1)&lt;/script&gt; &amp;lt;b&amp;gt;",
    "unicode": "＜script＞alert(1)＜/script＞ "
    "\u202egnp.exe \u2028\u2029 <scr\u200bipt>",
    "comment-breakout": "--><script>alert(1)</script><!--",
    "single-quote-attribute": "' onmouseover='alert(1)' x='",
    "double-quote-attribute": '" onfocus="alert(1)" autofocus="',
    "math-namespace": "<math><mtext><table><mglyph><style><img src=x onerror=alert(1)>",
    "svg-script": "<svg><script>alert(1)</script></svg>",
    "obfuscated-scheme": "[x]( JaVaScRiPt:alert(1)) [y](java&#9;script:alert(1)) "
    '<a href="&#106;avascript:alert(1)">x</a> [z](java\tscript:alert(1))',
    "markdown-reference": '[x][a] ![i](x" onerror="alert(1)) <javascript:alert(1)>'
    "\n\n[a]: javascript:alert(1)",
    "line-injection": "x\r\nURL:javascript:alert(1)\r\nBEGIN:VEVENT\r\n",
    "control-characters": "tab\tvt\x0bff\x0cesc\x1b",
}
# Valid for URLField, so every write path accepts it, yet it tries to leave href="".
HOSTILE_URL = "https://example.org/x\"><svg/onload=alert(1)>'onmouseover='alert(1)"
# A quoted local part may hold markup and still pass EmailValidator.
HOSTILE_EMAIL = '"<script>alert(1)</script>"@example.org'
# Every value starts with this word, so a search for it shows result snippets.
MARK = "zebracorn"

ATOM = "{http://www.w3.org/2005/Atom}"
SITEMAP = "{http://www.sitemaps.org/schemas/sitemap/0.9}"

# Elements no page of the site puts in its own markup (its own pictures are SVG
# elements of class "chart-svg", drawn by core.lib.charts; any other SVG is a problem).
FORBIDDEN_TAGS = frozenset(
    {"iframe", "frame", "frameset", "object", "embed", "base", "svg", "math", "style"}
    | {"mglyph", "mtext", "malignmark"}
)
URL_ATTRIBUTES = frozenset(
    {"href", "src", "action", "formaction", "xlink:href", "data", "poster", "srcset"}
)
DATA_SCRIPT_TYPES = frozenset({"application/ld+json", "application/json"})


# -- reading a page as a browser would ------------------------------------------------


def _runs_code(url: str) -> bool:
    # As a browser reads a URL (WHATWG): controls and spaces trimmed from the ends,
    # tabs and line breaks dropped everywhere; a space inside stays and kills a scheme.
    url = re.sub(r"[\t\n\r]", "", url.strip("".join(map(chr, range(0x21)))))
    return url.lower().startswith(("javascript:", "data:", "vbscript:"))


class _Page(HTMLParser):
    """What a browser would run or load from a page, and the text of its heading."""

    def __init__(self, allow: frozenset[str]) -> None:
        super().__init__()
        self.forbidden = FORBIDDEN_TAGS - allow
        self.problems: list[str] = []
        self.data_blocks: list[tuple[str, str]] = []
        self.meta: dict[str, list[str]] = {}
        self.query_values: list[str] = []
        self.h1 = ""
        self._script: dict | None = None
        self._script_text = ""
        self._in_h1 = False

    def handle_starttag(self, tag: str, attrs: list) -> None:
        for name, value in attrs:
            if name.startswith("on"):
                self.problems.append(f"<{tag} {name}={value!r}>")
            if name in URL_ATTRIBUTES and _runs_code(value or ""):
                self.problems.append(f"<{tag} {name}={value!r}>")
        attributes = dict(attrs)
        own_picture = (
            tag == "svg" and "chart-svg" in (attributes.get("class") or "").split()
        )
        if tag in self.forbidden and not own_picture:
            self.problems.append(f"<{tag} {attrs!r}>")
        if tag == "meta":
            if (attributes.get("http-equiv") or "").lower() == "refresh":
                self.problems.append(f"<meta {attrs!r}>")
            key = attributes.get("property") or attributes.get("name")
            if key:
                self.meta.setdefault(key, []).append(attributes.get("content") or "")
        if tag == "script":
            src = attributes.get("src") or ""
            own_file = src.startswith("/") and not src.startswith("//")
            if not own_file and attributes.get("type") not in DATA_SCRIPT_TYPES:
                self.problems.append(f"<script {attrs!r}>")
            self._script, self._script_text = attributes, ""
        if tag == "input" and attributes.get("name") == "q":
            self.query_values.append(attributes.get("value") or "")
        if tag == "h1":
            self._in_h1 = True

    def handle_endtag(self, tag: str) -> None:
        if tag == "script" and self._script is not None:
            kind = self._script.get("type")
            if kind in DATA_SCRIPT_TYPES:
                self.data_blocks.append((kind, self._script_text))
            self._script = None
        if tag == "h1":
            self._in_h1 = False

    def handle_data(self, data: str) -> None:
        if self._script is not None:
            self._script_text += data
        if self._in_h1:
            self.h1 += data

    def handle_comment(self, data: str) -> None:
        if "alert" in data:
            self.problems.append(f"<!--{data}-->")

    @property
    def jsonld(self) -> list:
        return [json.loads(t) for kind, t in self.data_blocks if "ld+json" in kind]


def _read(html: str, allow: frozenset[str] = frozenset()) -> _Page:
    page = _Page(allow)
    page.feed(html)
    page.close()
    for _kind, text in page.data_blocks:
        # A data block that held "<" could hold "</script" or "<!--" too.
        if "<" in text:
            page.problems.append(f"markup in a data block: {text[:120]!r}")
        try:
            json.loads(text)
        except ValueError:
            page.problems.append(f"a data block is not JSON: {text[:120]!r}")
    return page


def _squash(text: str) -> str:
    """Text with runs of whitespace as one space: line ends differ between formats."""
    return " ".join(text.split())


def _as_in_xml(text: str) -> str:
    """The text a feed can carry: XML 1.0 has no room for most control characters."""
    return _squash(re.sub(r"[\x00-\x08\x0b\x0c\x0e-\x1f]", " ", text))


def _xml(response) -> ET.Element:
    assert response.status_code == 200
    return ET.fromstring(response.content)


# -- records whose every text field is hostile ---------------------------------------

Text = Callable[[models.Field], str]


def _free_text_fields(model: type[models.Model]) -> list[models.Field]:
    """Columns anyone with edit rights can type anything into."""
    return [
        field
        for field in model._meta.concrete_fields
        if isinstance(field, models.CharField | models.TextField)
        and not isinstance(
            field, models.SlugField | models.EmailField | models.URLField
        )
        # Identifiers (ORCID, DOI, …) are checked against their own syntax.
        and type(field).__module__ != "core.identifiers"
        and not field.choices
        # Written by the site itself (a citation key), never typed.
        and field.editable
    ]


def _fit(value: str, field: models.Field) -> str:
    return value[: field.max_length] if field.max_length else value


def _every_payload() -> Text:
    """Payloads in turn, field after field: each lands in many kinds of field."""
    turn = itertools.cycle(PAYLOADS.values())
    return lambda field: _fit(f"{MARK} {next(turn)}", field)


def _one_payload(payload: str) -> Text:
    return lambda field: _fit(f"{MARK} {payload}", field)


def _record(model: type[models.Model], text: Text, **fields) -> models.Model:
    """Save a record that passes validation, as the admin or an import would."""
    values = {field.name: text(field) for field in _free_text_fields(model)}
    obj = model(**{**values, **fields})
    obj.full_clean()
    obj.save()
    return obj


def _scene(text: Text) -> SimpleNamespace:
    """A member with every profile section, two papers, news and a talk."""
    today = timezone.localdate()
    with deferred():
        topic = _record(Topic, text, slug="hostile-topic")
        org = _record(Organization, text, slug="hostile-org", url=HOSTILE_URL)
        person = _record(
            Person,
            text,
            slug="mallory",
            role="phd_student",
            organization=org,
            email=HOSTILE_EMAIL,
            secondary_email=HOSTILE_EMAIL,
            # Published, so that the profile and the card write the addresses.
            publish_email=True,
        )
        person.topics.add(topic)
        _record(PersonLink, text, person=person, url=HOSTILE_URL)
        _record(ResearchArea, text, person=person)
        _record(Education, text, person=person, organization=org)
        venue = _record(Venue, text, slug="hostile-venue", url=HOSTILE_URL)
        paper = _record(Publication, text, slug="hostile-paper", year=2024, venue=venue)
        paper.topics.add(topic)
        _record(Authorship, text, publication=paper, position=1, person=person)
        _record(Authorship, text, publication=paper, position=2)
        _record(PublicationLink, text, publication=paper, kind="pdf", url=HOSTILE_URL)
        # No stored BibTeX: the entry is written from the hostile fields instead.
        written = _record(
            Publication, text, slug="hostile-written", year=2023, bibtex=""
        )
        _record(Authorship, text, publication=written, position=1, person=person)
        experience = _record(
            Experience, text, person=person, organization=org, publication=paper
        )
        _record(ExperienceLink, text, experience=experience, url=HOSTILE_URL)
        _record(Award, text, person=person, year=2024)
        _record(Service, text, person=person, kind="reviewer", year=2024)
        _record(Teaching, text, person=person, organization=org)
        project = _record(OpenSourceContribution, text, person=person)
        _record(ContributionLink, text, contribution=project, url=HOSTILE_URL)
        _record(Skill, text, person=person)
        _record(Interest, text, person=person)
        news = _record(
            Event,
            text,
            slug="hostile-news",
            kind="news",
            date=today - datetime.timedelta(days=3),
        )
        news.publications.add(paper)
        talk = _record(
            Event,
            text,
            slug="hostile-talk",
            kind="talk",
            date=today + datetime.timedelta(days=3),
        )
        for event in (news, talk):
            event.people.add(person)
            event.topics.add(topic)
            _record(EventLink, text, event=event, url=HOSTILE_URL)
    return SimpleNamespace(
        topic=topic, person=person, paper=paper, news=news, talk=talk
    )


# -- pages ----------------------------------------------------------------------------

SEARCHES = [
    f"/people/?q={MARK}",
    f"/publications/?q={MARK}",
    f"/events/?q={MARK}",
    f"/search/?q={MARK}",
]
PAGES = [
    "/",
    "/people/",
    "/people/mallory/",
    "/people/?topic=hostile-topic&organization=hostile-org&venue=hostile-venue",
    "/publications/",
    "/publications/hostile-paper/",
    "/publications/hostile-written/",
    "/publications/?topic=hostile-topic&venue=hostile-venue&author=mallory",
    "/events/",
    "/events/hostile-news/",
    "/events/hostile-talk/",
    "/events/?person=mallory&topic=hostile-topic",
    "/topics/hostile-topic/",
    *SEARCHES,
]


def test_hostile_text_in_every_field_stays_text_on_every_page(client, db):
    scene = _scene(_every_payload())

    pages, html = {}, {}
    for url in PAGES:
        response = client.get(url)
        assert response.status_code == 200, url
        html[url] = response.content.decode()
        pages[url] = _read(html[url])

    assert {url: page.problems for url, page in pages.items()} == {
        url: [] for url in PAGES
    }
    # The checks saw the hostile text where it is most exposed.
    for url in SEARCHES:
        assert f"<mark>{MARK}</mark>" in html[url], url
    profile, paper = pages["/people/mallory/"], pages["/publications/hostile-paper/"]
    assert _squash(scene.person.display_name) in _squash(profile.h1)
    assert [data["name"] for data in profile.jsonld] == [scene.person.display_name]
    assert [_squash(t) for t in paper.meta["citation_title"]] == [
        _squash(scene.paper.title)
    ]
    assert [_squash(t) for t in paper.meta["og:title"]] == [_squash(scene.paper.title)]
    assert pages["/events/hostile-news/"].jsonld[0]["name"] == scene.news.title


def test_hostile_text_stays_text_in_the_browsable_api(client, db):
    _scene(_every_payload())

    for url in [
        "/api/people/mallory/",
        f"/api/people/?q={MARK}",
        "/api/publications/hostile-paper/",
        "/api/events/hostile-news/",
        "/api/topics/hostile-topic/",
    ]:
        response = client.get(url, HTTP_ACCEPT="text/html")
        assert response["Content-Type"].startswith("text/html"), url
        # The style element is DRF's code highlighting, in every browsable page.
        page = _read(response.content.decode(), allow=frozenset({"style"}))
        assert page.problems == [], url


def test_hostile_text_stays_text_in_the_admin(admin_client_logged_in):
    scene = _scene(_every_payload())
    experience = scene.person.experience.get()

    urls = [
        "/admin/people/person/",
        f"/admin/people/person/?q={MARK}",
        f"/admin/people/person/{scene.person.pk}/change/",
        f"/admin/people/experience/{experience.pk}/change/",
        "/admin/publications/publication/",
        f"/admin/publications/publication/{scene.paper.pk}/change/",
        "/admin/events/event/",
        f"/admin/events/event/{scene.news.pk}/change/",
        f"/admin/directory/topic/{scene.topic.pk}/change/",
    ]
    # Django's admin draws icons with inline SVG and sizes a column with a style
    # element; injected ones would still need a handler or a script to run.
    admin_markup = frozenset({"svg", "style"})
    for url in urls:
        response = admin_client_logged_in.get(url)
        assert response.status_code == 200, url
        assert _read(response.content.decode(), allow=admin_markup).problems == [], url


@pytest.mark.parametrize("payload", PAYLOADS.values(), ids=PAYLOADS.keys())
def test_each_payload_renders_as_text_on_a_profile(client, db, payload):
    person = _scene(_one_payload(payload)).person

    response = client.get("/people/mallory/")

    page = _read(response.content.decode())
    assert page.problems == []
    heading = f"{person.display_name} ({person.preferred_name})"
    assert _squash(page.h1) == _squash(heading)
    assert [data["name"] for data in page.jsonld] == [person.display_name]
    assert [_squash(t) for t in page.meta["og:title"]] == [_squash(person.display_name)]


@pytest.mark.parametrize("payload", PAYLOADS.values(), ids=PAYLOADS.keys())
def test_each_payload_in_the_address_is_echoed_as_text(client, db, payload):
    requests = [
        ("/search/", ["q"]),
        ("/people/", ["q", "topic", "organization", "venue", "sort"]),
        ("/publications/", ["q", "venue", "year", "author", "sort"]),
        ("/events/", ["q", "person", "when", "kind"]),
    ]
    for url, names in requests:
        response = client.get(url, dict.fromkeys(names, payload))
        assert response.status_code == 200, url
        page = _read(response.content.decode())
        assert page.problems == [], url
        assert _squash(payload) in [_squash(v) for v in page.query_values], url


# -- feeds, calendars, cards and the API ----------------------------------------------


@pytest.mark.parametrize("payload", PAYLOADS.values(), ids=PAYLOADS.keys())
def test_each_payload_stays_data_in_feeds_calendars_cards_and_the_api(
    client, db, payload
):
    scene = _scene(_one_payload(payload))
    person, news, talk = scene.person, scene.news, scene.talk

    # Atom titles are text; a summary is HTML that a feed reader renders.
    (entry,) = _xml(client.get("/events/feed/")).iter(f"{ATOM}entry")
    assert _squash(entry.findtext(f"{ATOM}title")) == _as_in_xml(news.title)
    assert _squash(entry.findtext(f"{ATOM}author/{ATOM}name")) == _as_in_xml(
        person.display_name
    )
    summary = entry.find(f"{ATOM}summary")
    assert summary.get("type") == "html"
    assert _read(summary.text or "").problems == []

    locations = [
        loc.text for loc in _xml(client.get("/sitemap.xml")).iter(f"{SITEMAP}loc")
    ]
    assert locations and all(loc.startswith("http://testserver/") for loc in locations)

    # A line break in the data must not start a property or an event of its own.
    for url in ["/events/calendar.ics", "/people/mallory/calendar.ics"]:
        calendar = icalendar.Calendar.from_ical(client.get(url).content)
        assert calendar.errors == []
        events = calendar.events
        assert sorted(_squash(str(e["SUMMARY"])) for e in events) == sorted(
            [_squash(news.title), _squash(talk.title)]
        )
        assert all(
            str(e["URL"]).startswith("http://testserver/events/") for e in events
        )
        assert {_squash(str(e["LOCATION"])) for e in events} == {_squash(news.location)}

    # Read line by line: icalendar's own parser unescapes N twice, so a ";" in a
    # name breaks it even though the card escapes it correctly.
    content = client.get("/people/mallory/vcard.vcf").content.decode()
    lines = [line.parts() for line in Contentlines.from_ical(content) if line]
    values = {name: [v for n, _, v in lines if n == name] for name, _, _ in lines}
    assert [_squash(v) for v in values["FN"]] == [_squash(person.display_name)]
    assert values["URL"] == ["http://testserver/people/mallory/", HOSTILE_URL]
    assert set(values) <= {
        "BEGIN",
        "END",
        "VERSION",
        "PRODID",
        "KIND",
        "FN",
        "N",
        "NICKNAME",
        "ORG",
        "TITLE",
        "EMAIL",
        "URL",
        "NOTE",
        "REV",
    }

    # The API hands the raw text over as JSON strings; escaping is the client's job.
    for url, key, value in [
        ("/api/people/mallory/", "bio", person.bio),
        ("/api/publications/hostile-paper/", "summary", scene.paper.summary),
        ("/api/events/hostile-news/", "description", news.description),
        ("/api/topics/hostile-topic/", "name", scene.topic.name),
    ]:
        response = client.get(url)
        assert response["Content-Type"] == "application/json", url
        assert json.loads(response.content)[key] == value, url
    response = client.get(f"/api/people/?q={MARK}")
    assert response["Content-Type"] == "application/json"
    assert json.loads(response.content)["results"][0]["display_name"] == (
        person.display_name
    )


# -- what keeps href="{{ link.url }}" safe -------------------------------------------

SCRIPT_URLS = [
    "javascript:alert(1)",
    "JaVaScRiPt:alert(1)",
    " javascript:alert(1)",
    "java\tscript:alert(1)",
    "data:text/html,<script>alert(1)</script>",
    "vbscript:msgbox(1)",
    "//evil.example/",
]


@pytest.mark.parametrize("url", SCRIPT_URLS)
def test_every_url_field_refuses_a_script_url(url):
    ours = [
        model
        for model in apps.get_models()
        if model._meta.app_label in {"directory", "people", "publications", "events"}
    ]
    url_fields = [
        (model, field.name)
        for model in ours
        for field in model._meta.concrete_fields
        if isinstance(field, models.URLField)
    ]
    assert {model for model, _ in url_fields} >= {
        model for model in ours if issubclass(model, ExternalLink)
    } | {Organization, Venue}
    for model, name in url_fields:
        with pytest.raises(ValidationError) as error:
            model(**{name: url}).clean_fields(
                exclude=[f.name for f in model._meta.fields if f.name != name]
            )
        assert name in error.value.message_dict, model


def test_the_api_refuses_a_script_url_for_a_link(admin_client_logged_in):
    response = admin_client_logged_in.post(
        "/api/publications/",
        {
            "slug": "paper",
            "title": "Paper",
            "year": 2024,
            "links": [{"url": "javascript:alert(1)"}],
        },
        content_type="application/json",
    )

    assert response.status_code == 400
    assert "links" in response.json()["error"]["fields"]
    assert not Publication.objects.exists()
