"""How the main pages are laid out in a real browser, at three screen widths.

Behaviour tests do not see a page laid out wrong (a template comment printed in the
sidebar, the results pushed below the facets): these measure the boxes.
"""

import pytest

from publications.models import Publication

pytestmark = pytest.mark.e2e

WIDTHS = [1280, 768, 375]
# Wider than the stylesheet's 52rem breakpoint: facets beside the results.
SIDE_BY_SIDE_FROM = 833
PAGES = [
    "/",
    "/people/",
    "/people/?q=KV+cache",
    "/publications/",
    "/events/",
    "/people/zhongzhu-zhou/",
    "/publications/duoattention/",
    "/events/2026-07-09-i-dlm-squeeze-evolve-colm/",
]
FACETED = ["/people/", "/people/?q=KV+cache", "/publications/", "/events/"]
# Pages with no layout of their own, checked with the others all the same.
ALSO_CHECKED = ["/search/?q=attention", "/topics/quantization/"]
TEMPLATE_SYNTAX = ("{#", "#}", "{%", "%}", "{{", "}}")


def _box(page, selector: str) -> dict:
    box = page.locator(selector).first.bounding_box()
    assert box is not None, f"{selector} is not shown"
    return box


def _overlap(a: dict, b: dict) -> bool:
    return (
        a["x"] < b["x"] + b["width"]
        and b["x"] < a["x"] + a["width"]
        and a["y"] < b["y"] + b["height"]
        and b["y"] < a["y"] + a["height"]
    )


@pytest.fixture
def sized(browser, live_server, lab):
    """A page at a screen width; one browser context per width, its cache kept."""
    contexts = {}

    def open_at(width: int, path: str):
        if width not in contexts:
            context = browser.new_context(
                base_url=live_server.url, viewport={"width": width, "height": 900}
            )
            contexts[width] = context.new_page()
        page = contexts[width]
        page.goto(path)
        return page

    yield open_at
    for page in contexts.values():
        page.context.close()


def _clear_of_the_header_and_no_sideways_scroll(page, path: str, width: int) -> None:
    overflow = page.evaluate("document.documentElement.scrollWidth - window.innerWidth")
    assert overflow <= 0, f"{path} at {width}px scrolls sideways by {overflow}px"
    header = _box(page, ".site-header")
    main = _box(page, "main")
    assert main["y"] >= header["y"] + header["height"] - 1, path
    # The header's own parts sit side by side or stacked, never on each other.
    parts = [".brand", "nav", ".site-search input", ".site-search button"]
    boxes = {p: _box(page, f".site-header {p}") for p in parts}
    for i, first in enumerate(parts):
        for second in parts[i + 1 :]:
            assert not _overlap(boxes[first], boxes[second]), (
                f"{first} overlaps {second} on {path} at {width}px"
            )


def _facets_beside_the_results_when_there_is_room(page, path: str, width: int):
    facets, results = _box(page, ".facets"), _box(page, ".results")
    assert not _overlap(facets, results), path
    if width >= SIDE_BY_SIDE_FROM:
        # Side by side, results on the right and starting level with the facets.
        assert facets["x"] + facets["width"] <= results["x"], path
        assert abs(facets["y"] - results["y"]) < 40, path
        assert results["width"] > 2 * facets["width"], path
    else:
        stacked = (
            facets["y"] >= results["y"] + results["height"] - 1
            or results["y"] >= facets["y"] + facets["height"] - 1
        )
        assert stacked, f"facets and results side by side at {width}px: {path}"
        assert results["width"] >= width - 64, path


def _no_template_syntax(page, path: str) -> None:
    # Text outside code blocks, where a lab might quote a template on purpose.
    text = page.evaluate(
        """() => {
            const clone = document.body.cloneNode(true);
            clone.querySelectorAll('pre, code').forEach(node => node.remove());
            return clone.innerText;
        }"""
    )
    for mark in TEMPLATE_SYNTAX:
        assert mark not in text, f"{mark!r} printed on {path}"


def _lists_keep_their_classes_and_no_bullets(page, path: str) -> None:
    """A rename of URL namespaces once turned `event-list` into `events:list` in
    the templates: the lists got bullets and no test noticed."""
    colons = page.evaluate(
        """() => [...document.querySelectorAll('[class]')]
            .flatMap(el => [...el.classList]).filter(c => c.includes(':'))"""
    )
    assert colons == [], f"{path}: class names with a colon: {colons}"
    for item in page.locator("main ul.publication-list, main ul.event-list").all():
        assert item.evaluate("(el) => getComputedStyle(el).listStyleType") == "none"


@pytest.mark.parametrize("width", WIDTHS)
def test_every_main_page_is_laid_out_for_the_width(sized, width):
    """Each page is loaded once per width and every layout check is made on it."""
    for path in [*PAGES, *ALSO_CHECKED]:
        page = sized(width, path)
        _clear_of_the_header_and_no_sideways_scroll(page, path, width)
        if path in FACETED:
            _facets_beside_the_results_when_there_is_room(page, path, width)
        _no_template_syntax(page, path)
        _lists_keep_their_classes_and_no_bullets(page, path)
        if path == "/":
            assert page.locator("main ul.publication-list").count() == 1


@pytest.mark.parametrize("width", [1280, 375])
def test_citations_and_abstract_fit_a_publication_page(sized, width):
    Publication.objects.filter(slug="duoattention").update(
        abstract="A long imported abstract. " * 40,
        openalex_id="W2741809807",
        cited_by_count=1234,
        counts_by_year=[
            {"year": year, "cited_by_count": 100 + year % 7}
            for year in range(2025, 2015, -1)
        ],
        citations_retrieved_at="2025-12-01T00:00:00Z",
    )

    page = sized(width, "/publications/duoattention/")

    overflow = page.evaluate("document.documentElement.scrollWidth - window.innerWidth")
    assert overflow <= 0, f"scrolls sideways by {overflow}px at {width}px"
    # Citations per year are a picture (its numbers in a table under it).
    figure = _box(page, "figure.chart")
    assert figure["x"] >= 0 and figure["x"] + figure["width"] <= width
    assert page.get_by_role("heading", name="Abstract").is_visible()
    assert page.locator("dd", has_text="1234").first.is_visible()
