"""Crawl the demo site from its home page: every link answers, no query breaks it."""

import json
import random
import re
from collections import deque
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import quote, urljoin, urlsplit
from xml.etree import ElementTree

import pytest
from django.core.cache import cache
from django.db import transaction
from django.http import HttpResponse
from django.test import Client

from core.api.base import COMMON_PARAMETERS
from events.filters import EventFilter
from people.filters import PersonFilter
from publications.filters import PublicationFilter
from tests import factories

# The demo lab has a few hundred URLs; hitting the cap means the crawl ran away.
MAX_URLS = 1500
# Entry points no page links to: the API and what crawlers read first.
SEEDS = [
    "/",
    "/robots.txt",
    "/sitemap.xml",
    "/api/",
    "/api/schema/",
    "/api/docs/",
    "/api/docs/?script=",
    "/api/redoc/",
]
BASE_DIR = Path(__file__).resolve().parents[2]
ORIGIN = "http://testserver"
ABSOLUTE_URL = re.compile(r"https?://testserver(/[^\s\"'<>\\]*)")
# Anonymous visitors are sent to the admin's login page; nothing else redirects.
REDIRECTING = re.compile(r"^/admin/")

# The pages that take filters, grouped by what they list, with the parameters each
# reads: every one gets every hostile value. Other pages get a sample of them.
LIST_PAGES = {
    "people": {
        "/people/": {*PersonFilter.base_filters, "page"},
        "/api/people/": {*PersonFilter.base_filters, *COMMON_PARAMETERS},
        # A detail endpoint reads the list's filters too (DRF's filter backend).
        "/api/people/zhongzhu-zhou/": {*PersonFilter.base_filters, "format"},
    },
    "publications": {
        "/publications/": {*PublicationFilter.base_filters, "page"},
        "/publications/export.bib": {*PublicationFilter.base_filters},
        "/api/publications/": {*PublicationFilter.base_filters, *COMMON_PARAMETERS},
        "/api/publications/duoattention/": {*PublicationFilter.base_filters, "format"},
    },
    "events": {
        "/events/": {*EventFilter.base_filters, "page"},
        "/api/events/": {*EventFilter.base_filters, *COMMON_PARAMETERS},
        "/api/events/2020-07-11-jsidentify-icse/": {
            *EventFilter.base_filters,
            "format",
        },
    },
    "search-and-directory": {
        "/search/": {"q"},
        "/api/topics/": COMMON_PARAMETERS,
        "/api/organizations/": {"kind", *COMMON_PARAMETERS},
        "/api/venues/": {"kind", *COMMON_PARAMETERS},
    },
}
PARAMETERS = [
    "q", "page", "page_size", "sort", "ordering", "year", "year_from", "year_to",
    "topic", "role", "venue", "status", "kind", "author", "person", "when", "format",
    "facets", "selected", "organization",
    # Read by the sitemap, the schema view, the Swagger page and the admin's login.
    "p", "lang", "version", "script", "next",
]  # fmt: skip  # a table: one parameter per cell
UNKNOWN = "nope"
VALUES = [
    "", " ", "-1", "0", "1.5", "99999999999999999999", "1e309", "NaN",
    "' OR 1=1 --", '"; DROP TABLE x;--', "<script>alert(1)</script>", "%00", "\x00",
    "../../etc/passwd", "a" * 5000, "9" * 5000, "🙂", "\ud800", "ǅ̈\u202e",
    '{"a":1}', "null", "true", ",,,", "_", "*",
]  # fmt: skip  # a table: one hostile value per cell
# Values that mean something to one parameter, tried on it besides the others.
MEANINGFUL = {
    "format": ["xml", "bibtex", "csl", "api", "json", "ris", "../../"],
    "facets": ["topic,role,nope", "topic,,topic", ","],
    "ordering": ["-year,title,nope", "-", "--year", "pk", "password"],
    "sort": ["relevance", "-relevance"],
    "when": ["upcoming,past"],
}
# Sent as they are: broken escapes, repetition, array and object syntax, mixtures.
RAW_QUERIES = [
    "page=1&page=2",
    "year=2024&year=abc&year=2024",
    "year[]=1",
    "year[0]=2024&year[1]=2025",
    "a[b]=c",
    "q=%",
    "q=%zz&page=%ff",
    "q=%E0%A4%A&topic=%C0%AF",
    "%00=1",
    "=1",
    "&&&=&",
    "q",
    ";=;",
    "q=attention&page=99999999999999999999",
    "q=attention&sort=relevance&page=2",
    "q=attention&ordering=-year&facets=topic",
    "q=atention&sort=title",
    "q=zzzzqqqxx&topic=efficient-ml",
    "facets=topic,role,year,venue,status,author,kind,when,person",
    "facets=topic&facets=year&facets=",
    "ordering=-year,title,nope,-",
    "page_size=0",
    "page_size=-5",
    "page_size=200&page=2",
    "format=bibtex&page=2",
    "format=csl&facets=topic",
    "format=api&q=attention",
    "topic=efficient-ml&topic=efficient-ml&topic=quantization",
    "q=" + "x%20" * 300,
    # More fields than Django parses (DATA_UPLOAD_MAX_NUMBER_FIELDS): a 400.
    "&".join(f"f{n}={n}" for n in range(1100)),
]


class _Links(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.hrefs: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        href = dict(attrs).get("href")
        if tag in ("a", "link") and href:
            self.hrefs.append(href)


class _Text(HTMLParser):
    """The text a visitor reads: outside scripts, styles and code blocks."""

    HIDDEN = {"script", "style", "pre", "code", "textarea"}

    def __init__(self) -> None:
        super().__init__()
        self.parts: list[str] = []
        self.depth = 0

    def handle_starttag(self, tag: str, attrs) -> None:
        self.depth += tag in self.HIDDEN

    def handle_endtag(self, tag: str) -> None:
        self.depth -= tag in self.HIDDEN and self.depth > 0

    def handle_data(self, data: str) -> None:
        if not self.depth:
            self.parts.append(data)


TEMPLATE_SYNTAX = ("{#", "#}", "{%", "%}", "{{", "}}")


def _template_syntax(response) -> list[str]:
    """Template tags printed as text: a comment or tag the engine did not read."""
    if not response.get("Content-Type", "").startswith("text/html"):
        return []
    parser = _Text()
    parser.feed(response.content.decode("utf-8", "replace"))
    text = "".join(parser.parts)
    return [mark for mark in TEMPLATE_SYNTAX if mark in text]


def _hrefs(response) -> list[str]:
    """Anchors and <link>s, sitemap and feed entries, absolute URLs in the rest."""
    content_type = response.get("Content-Type", "").split(";")[0]
    if response.streaming or content_type.startswith(("image/", "font/")):
        return []
    text = response.content.decode("utf-8", "replace")
    if content_type == "text/html":
        parser = _Links()
        parser.feed(text)
        return parser.hrefs
    if content_type.endswith("xml"):
        root = ElementTree.fromstring(response.content)
        found = [e.text for e in root.iter() if e.tag.endswith("}loc") and e.text]
        return found + [e.get("href") for e in root.iter() if e.get("href")]
    if content_type.endswith("json"):
        return _json_strings(json.loads(text))
    # iCalendar and vCard fold long lines, URLs included.
    return [
        ORIGIN + path for path in ABSOLUTE_URL.findall(re.sub(r"\r?\n[ \t]", "", text))
    ]


def _json_strings(data) -> list[str]:
    if isinstance(data, dict):
        return [s for value in data.values() for s in _json_strings(value)]
    if isinstance(data, list):
        return [s for value in data for s in _json_strings(value)]
    return [data] if isinstance(data, str) and data.startswith(ORIGIN + "/") else []


def _internal(href: str, base: str) -> str | None:
    """The link as a local path and query, or None for other sites and schemes."""
    url = urlsplit(urljoin(ORIGIN + base, href))
    if url.scheme not in ("http", "https") or url.netloc != "testserver":
        return None
    if "logout" in url.path:
        return None
    return url.path + (f"?{url.query}" if url.query else "")


def _get(client: Client, url: str) -> HttpResponse | Exception:
    """The response, or the exception a view raised (a visitor would see a 500)."""
    try:
        return client.get(url)
    except Exception as exc:  # reported with every other failure, at the end
        return exc


def _drain(response: HttpResponse) -> None:
    # A streamed file (static, media) is closed once read to the end. Not close():
    # outside the client that ends the "request" and so the test's connection.
    response.getvalue()


def _status(client: Client, url: str) -> int | Exception:
    response = _get(client, url)
    if isinstance(response, Exception):
        return response
    _drain(response)
    return response.status_code


def crawl(
    client: Client, printed: dict[str, list[str]] | None = None
) -> dict[str, int | Exception]:
    """Breadth-first from the seeds: each URL's status, or the exception it raised.

    Links with a query string are followed from pages without one only: that
    reaches every facet value, page and export once without walking through
    every combination of facets.
    """
    seen = dict.fromkeys(SEEDS)
    queue = deque(SEEDS)
    results: dict[str, int | Exception] = {}
    while queue and len(results) < MAX_URLS:
        url = queue.popleft()
        response = _get(client, url)
        if isinstance(response, Exception):
            results[url] = response
            continue
        results[url] = response.status_code
        hrefs = _hrefs(response) if response.status_code == 200 else []
        if printed is not None and response.status_code == 200:
            if marks := _template_syntax(response):
                printed[url] = marks
        _drain(response)
        if response.has_header("Location"):
            hrefs.append(response["Location"])
        for href in hrefs:
            link = _internal(href, url)
            if link is None or link in seen or ("?" in link and "?" in url):
                continue
            seen[link] = None
            queue.append(link)
    return results


def _failures(results: dict[str, int | Exception]) -> dict[str, str]:
    return {
        url: repr(result) if isinstance(result, Exception) else str(result)
        for url, result in results.items()
        if isinstance(result, Exception) or result >= 500
    }


def _encoded(name: str, value: str) -> str:
    # A lone surrogate is sent as the bytes it would have in UTF-8 (invalid there).
    return "=".join(
        quote(part.encode("utf-8", "surrogatepass"), safe="") for part in (name, value)
    )


def _hostile_queries(names: list[str]) -> list[str]:
    """Each value for each name (and an unknown one) alone, then all names at once."""
    return [
        *(
            _encoded(name, value)
            for name in [*names, UNKNOWN]
            for value in VALUES + MEANINGFUL.get(name, [])
        ),
        # One bad value must not change how another parameter is read.
        *("&".join(_encoded(name, value) for name in names) for value in VALUES),
    ]


GARBAGE = _hostile_queries(PARAMETERS) + RAW_QUERIES


@pytest.fixture(scope="module")
def crawled(django_db_setup, django_db_blocker, snapshots):
    """One crawl of the demo site for the module's tests: each URL's status and the
    template syntax printed on it (in a transaction rolled back after it)."""
    printed: dict[str, list[str]] = {}
    with django_db_blocker.unblock(), transaction.atomic():
        snapshots.restore(factories.demo_lab)
        results = crawl(Client(), printed)
        transaction.set_rollback(True)
    cache.clear()
    return results, printed


def test_every_link_from_the_home_page_answers(client, crawled, demo_lab):
    results, printed = crawled
    assert _failures(results) == {}
    assert printed == {}, "template syntax shown as page text"
    assert {
        url: status
        for url, status in results.items()
        if status != 200 and not (REDIRECTING.match(url) and status == 302)
    } == {}
    # Every kind of page was reached, through the links a visitor follows.
    assert 150 < len(results) < MAX_URLS
    paths = {url.split("?")[0] for url in results}
    assert {
        "/people/zhongzhu-zhou/",
        "/people/zhongzhu-zhou/vcard.vcf",
        "/people/zhongzhu-zhou/calendar.ics",
        "/publications/export.ris",
        "/events/feed/",
        "/events/calendar.ics",
        "/topics/quantization/",
        "/api/people/zhongzhu-zhou/",
        "/api/topics/quantization/",
        "/admin/login/",
    } <= paths
    assert any(url.startswith("/publications/?topic=") for url in results)
    assert any(url.startswith("/api/publications/?author=") for url in results)
    sitemap = [_internal(href, "/") for href in _hrefs(client.get("/sitemap.xml"))]
    assert len(sitemap) > 50 and set(sitemap) <= set(results)


@pytest.mark.slow
def test_crawled_pages_ignore_garbage_parameters(client, crawled, demo_lab):
    """Every crawled page with ten hostile query strings, the same ones each run.

    Slow: about 2,000 requests, each a page built without the cache."""
    listed = {path for pages in LIST_PAGES.values() for path in pages}
    results, _ = crawled
    paths = sorted({url.split("?")[0] for url in results} - listed)
    results = {
        f"{path}?{query}": _status(client, f"{path}?{query}")
        for path in paths
        for query in random.Random(path).sample(GARBAGE, 10)
    }
    assert _failures(results) == {}


@pytest.mark.slow
@pytest.mark.parametrize("group", LIST_PAGES)
def test_list_pages_survive_every_garbage_parameter(client, demo_lab, group):
    """Every hostile value for every parameter a filtered page or endpoint reads.

    Slow: 400 to 500 requests a page, most of them a full faceted list."""
    results = {
        path: {
            query: _status(client, f"{path}?{query}")
            for query in _hostile_queries(sorted(names)) + RAW_QUERIES
        }
        for path, names in LIST_PAGES[group].items()
    }
    for path, statuses in results.items():
        assert _failures(statuses) == {}, path
        if path.startswith("/api/"):
            # Unknown parameters and invalid values are refused, bad pages not found.
            assert set(statuses.values()) <= {200, 400, 404}, path
        else:
            # The pages ignore what they cannot use; too many fields are refused.
            assert set(statuses.values()) <= {200, 400}, path


def test_no_template_comment_spans_lines():
    """Django reads `{# … #}` on one line only; spread over several it is printed."""
    spread = []
    for path in (BASE_DIR / "templates").rglob("*.html"):
        for number, line in enumerate(path.read_text().splitlines(), start=1):
            if line.count("{#") > line.count("#}"):
                spread.append(f"{path.relative_to(BASE_DIR)}:{number}")
    assert spread == [], "use {% comment %}…{% endcomment %} for several lines"
