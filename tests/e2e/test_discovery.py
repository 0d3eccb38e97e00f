"""Similar researchers and the connections page in a real browser."""

import os
import re
from pathlib import Path

import pytest

pytestmark = pytest.mark.e2e
AXE = Path(__file__).parent / "vendor" / "axe-4.14.1.min.js"
# Where a run leaves its screenshots to be looked at (not committed).
SHOTS = Path(os.environ.get("E2E_SCREENSHOTS", "/tmp/e2e-discovery"))


def _serious_violations(page) -> list:
    page.add_script_tag(path=str(AXE))
    result = page.evaluate("axe.run(document, {resultTypes: ['violations']})")
    return [
        (v["id"], v["impact"], len(v["nodes"]))
        for v in result["violations"]
        if v["impact"] in ("serious", "critical")
    ]


@pytest.mark.parametrize("width", [1280, 375])
def test_from_a_profile_to_a_similar_researcher_and_how_they_connect(
    browser, live_server, lab, width
):
    context = browser.new_context(
        base_url=live_server.url,
        viewport={"width": width, "height": 900},
        bypass_csp=True,
    )
    page = context.new_page()
    page.goto("/people/jingwei-zuo/")
    section = page.locator("#similar")
    assert section.get_by_role("heading", name="Similar researchers").is_visible()
    cards = section.locator("li")
    assert cards.count() == 3
    assert re.search(r"\w", cards.first.locator(".why").inner_text())
    SHOTS.mkdir(parents=True, exist_ok=True)
    section.screenshot(path=str(SHOTS / f"similar-{width}.png"))
    assert not _serious_violations(page)

    cards.first.get_by_role("link", name=re.compile("How they are connected")).click()
    page.wait_for_url(re.compile(r"/people/jingwei-zuo/connections/[-\w]+/$"))
    assert page.get_by_role("heading", level=1).inner_text().startswith("Jingwei Zuo")
    for heading in ("Co-authorship path", "Shared papers", "Shared topics"):
        assert page.get_by_role("heading", name=heading).is_visible()
    overflow = page.evaluate(
        "document.documentElement.scrollWidth - document.documentElement.clientWidth"
    )
    assert overflow <= 0
    page.screenshot(path=str(SHOTS / f"connections-{width}.png"), full_page=True)
    assert not _serious_violations(page)
    context.close()


def test_the_connections_page_works_without_javascript(browser, live_server, lab):
    context = browser.new_context(base_url=live_server.url, java_script_enabled=False)
    page = context.new_page()
    page.goto("/people/lei-zhu/connections/s-zheng/")
    assert page.get_by_role("heading", name="Organisations").is_visible()
    context.close()
