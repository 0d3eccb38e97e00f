"""The pictures in a real browser: accessible, laid out at phone and desktop widths,
linked, and drawn without JavaScript."""

import re

import pytest

from tests.e2e.test_journeys import AXE

pytestmark = pytest.mark.e2e

PICTURED = [
    "/topics/",
    "/people/network/",
    "/people/jingwei-zuo/",
    "/topics/efficient-ml/",
    "/publications/?year=2025",
    "/publications/duoattention/",
]


@pytest.fixture
def cited(lab):
    """The demo lab, with citation counts per year on one paper."""
    from publications.models import Publication

    Publication.objects.filter(slug="duoattention").update(
        cited_by_count=160,
        counts_by_year=[
            {"year": 2024, "cited_by_count": 40},
            {"year": 2025, "cited_by_count": 120},
        ],
    )


@pytest.fixture
def at_width(browser, live_server, cited):
    contexts = []

    def open_at(width: int, path: str, **options):
        context = browser.new_context(
            base_url=live_server.url,
            viewport={"width": width, "height": 900},
            **options,
        )
        contexts.append(context)
        page = context.new_page()
        page.goto(path)
        return page

    yield open_at
    for context in contexts:
        context.close()


@pytest.mark.parametrize("path", PICTURED)
def test_pictures_have_no_serious_accessibility_violations(page, cited, path):
    page.goto(path)
    page.add_script_tag(path=str(AXE))
    result = page.evaluate("axe.run(document, {resultTypes: ['violations']})")
    serious = [
        (v["id"], v["impact"], [n["target"] for n in v["nodes"]][:3])
        for v in result["violations"]
        if v["impact"] in ("serious", "critical")
    ]
    assert not serious, serious


@pytest.mark.parametrize("width", [1280, 375])
def test_pictures_fit_the_page_at_desktop_and_phone_widths(at_width, width):
    for path in PICTURED:
        page = at_width(width, path)
        overflow = page.evaluate(
            "document.documentElement.scrollWidth - window.innerWidth"
        )
        assert overflow <= 0, f"{path} at {width}px scrolls sideways by {overflow}px"
        main = page.locator("main").bounding_box()
        figures = page.locator("figure.chart")
        assert figures.count() >= 1, path
        for i in range(figures.count()):
            box = figures.nth(i).bounding_box()
            assert box["x"] >= main["x"] - 1, path
            assert box["x"] + box["width"] <= main["x"] + main["width"] + 1, path
            svg = figures.nth(i).locator("svg").first.bounding_box()
            assert svg["width"] > 200 and svg["height"] > 100, (path, svg)
            # Text in a picture is never drawn smaller than about 8 CSS pixels.
            size = page.evaluate(
                """(figure) => {
                    const svg = figure.querySelector('svg');
                    const box = svg.viewBox.baseVal;
                    return 11 * svg.getBoundingClientRect().width / box.width;
                }""",
                figures.nth(i).element_handle(),
            )
            assert size >= 7.5, (path, width, size)


def test_network_scrolls_inside_its_box_on_a_phone(at_width):
    page = at_width(375, "/people/jingwei-zuo/")
    region = page.locator(".chart-scroll").first
    sizes = region.evaluate("(el) => [el.scrollWidth, el.clientWidth]")
    assert sizes[0] > sizes[1]  # the picture keeps its size and scrolls
    region.focus()  # reachable from the keyboard
    page.keyboard.press("ArrowRight")
    # A keyboard scroll may be animated: wait for it to move (or time out).
    page.wait_for_function("(el) => el.scrollLeft > 0", arg=region.element_handle())


def test_a_small_group_network_fits_a_phone_at_its_own_size(at_width):
    """The demo lab's four members: every circle and name inside the screen."""
    page = at_width(375, "/people/network/")
    region = page.locator(".chart-scroll").first
    scroll_width, client_width = region.evaluate(
        "(el) => [el.scrollWidth, el.clientWidth]"
    )
    assert scroll_width <= client_width
    svg = page.locator("svg.chart-network").bounding_box()
    for label in page.locator("svg.chart-network text").all():
        box = label.bounding_box()
        assert (
            svg["x"] <= box["x"] and box["x"] + box["width"] <= svg["x"] + svg["width"]
        )
        assert box["x"] + box["width"] <= 375
    size = page.evaluate(
        """() => {
            const svg = document.querySelector('svg.chart-network');
            return 11 * svg.getBoundingClientRect().width / svg.viewBox.baseVal.width;
        }"""
    )
    assert 10.5 <= size <= 11.5  # drawn at its own size, neither shrunk nor blown up


def test_pictures_are_drawn_and_linked_without_javascript(at_width):
    page = at_width(1280, "/topics/", java_script_enabled=False)
    tile = page.locator("svg.chart-treemap a", has_text="Quantization").first
    tile.click()
    page.wait_for_url(re.compile(r"/topics/quantization/$"))
    page.goto("/people/jingwei-zuo/")
    # Labels name their person; members among them open their profiles.
    network = page.locator("#coauthors svg")
    assert network.locator("text", has_text="Chen Qian").count() == 1
    page.goto("/people/network/")
    page.locator("svg.chart-network a", has_text="Lei Zhu").click()
    page.wait_for_url(re.compile(r"/people/lei-zhu/$"))


def test_year_picture_follows_the_facets_swapped_in_place(at_width):
    page = at_width(1280, "/publications/")
    before = page.locator("#list-years-desc").text_content()
    page.locator("a.facet-option", has_text="2025").first.click()
    page.wait_for_url(re.compile(r"year=2025"))
    page.wait_for_selector("rect.chart-bar.selected")
    # The year facet ignores its own selection, so the bars stay and one is marked.
    assert page.locator("#list-years-desc").text_content() == before
    page.locator("a.facet-option", has_text="ICLR").first.click()
    page.wait_for_url(re.compile(r"venue="))
    page.wait_for_function(
        "(before) => document.querySelector('#list-years-desc').textContent !== before",
        arg=before,
    )
