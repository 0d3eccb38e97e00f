"""The API's documentation pages in a real browser, under the site's own CSP."""

from urllib.parse import urlsplit

import pytest

pytestmark = pytest.mark.e2e


@pytest.mark.parametrize(
    ("path", "rendered"),
    [("/api/redoc/", "h1"), ("/api/docs/", ".swagger-ui .info")],
)
def test_api_docs_render_and_ask_no_other_host(
    browser, live_server, db, path, rendered
):
    # bypass_csp off: the page must work with the policy the site sends.
    context = browser.new_context(base_url=live_server.url)
    page = context.new_page()
    host = urlsplit(live_server.url).netloc
    elsewhere, refused = [], []
    page.on(
        "request",
        lambda r: urlsplit(r.url).netloc not in (host, "") and elsewhere.append(r.url),
    )
    page.on(
        "console",
        lambda m: "Content Security Policy" in m.text and refused.append(m.text),
    )
    page.goto(path)
    page.locator(rendered).first.wait_for(timeout=15_000)
    page.get_by_text("publications", exact=False).first.wait_for()
    context.close()
    assert elsewhere == []
    assert refused == []
