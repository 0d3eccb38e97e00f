"""The 503 page in a real browser: styled by the site's stylesheet under its
Content-Security-Policy, readable on a phone and a desktop."""

import pytest

pytestmark = [
    pytest.mark.e2e,
    pytest.mark.django_db(transaction=True),
    pytest.mark.urls("tests.core.test_unavailable"),
]


@pytest.mark.parametrize("width", [375, 1280])
def test_the_503_page_is_styled_and_fits_the_screen(browser, live_server, width):
    context = browser.new_context(
        base_url=live_server.url, viewport={"width": width, "height": 800}
    )
    page = context.new_page()
    refused = []
    page.on("console", lambda m: refused.append(m.text) if m.type == "error" else None)
    try:
        response = page.goto("/unreachable/")
        assert response.status == 503
        assert response.headers["retry-after"] == "30"
        assert "content-security-policy" in response.headers
        heading = page.get_by_role("heading", level=1)
        assert heading.inner_text() == "Temporarily unavailable"
        # The site's stylesheet applied: its wrapper is centred, not full width.
        margin = page.eval_on_selector(
            "main.wrap", "e => getComputedStyle(e).marginLeft"
        )
        if width == 1280:
            assert margin != "0px"
        overflow = page.evaluate(
            "document.documentElement.scrollWidth - window.innerWidth"
        )
        assert overflow <= 0
        assert page.get_by_role("link", name="Home page").is_visible()
        # A 503 is logged by the browser as a failed load; nothing else is refused.
        assert not [m for m in refused if "Content Security Policy" in m]
    finally:
        context.close()
