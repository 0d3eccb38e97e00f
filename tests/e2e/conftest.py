import os

import pytest

# Playwright's sync API keeps an event loop running in the test thread, which Django
# would take for async code; the tests' own ORM calls are plain synchronous ones.
os.environ.setdefault("DJANGO_ALLOW_ASYNC_UNSAFE", "true")

CHROMIUM = "/usr/bin/chromium"
# Flags for Chromium as root in a closed network (see ../shared/NOTES.md).
FLAGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]


def pytest_collection_modifyitems(config, items):
    if os.path.exists(CHROMIUM):
        return
    skip = pytest.mark.skip(reason=f"{CHROMIUM} is not installed")
    for item in items:
        if "e2e" in str(item.fspath):
            item.add_marker(skip)


@pytest.fixture(scope="session")
def browser():
    from playwright.sync_api import sync_playwright

    # launch() gives Chromium a fresh, throw-away profile directory of its own.
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=FLAGS)
        yield browser
        browser.close()


@pytest.fixture
def page(browser, live_server):
    context = browser.new_context(base_url=live_server.url, bypass_csp=True)
    context.grant_permissions(["clipboard-read", "clipboard-write"])
    page = context.new_page()
    yield page
    context.close()


@pytest.fixture
def lab(transactional_db, restore):
    """The demo lab in the live server's database (committed)."""
    from tests import factories

    restore(factories.demo_lab)
