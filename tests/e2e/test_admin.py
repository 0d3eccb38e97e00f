"""Admin forms in a real browser, under the site's Content-Security-Policy."""

import pytest

from publications.models import Publication
from tests import factories

pytestmark = pytest.mark.e2e
PASSWORD = "a-long-pw-123456"


@pytest.fixture
def staff_page(browser, live_server, transactional_db, django_user_model):
    """A signed-in staff member's page at 1280 px, the CSP enforced; the test fails
    on any script error or refused script."""
    django_user_model.objects.create_superuser("staff", "s@example.org", PASSWORD)
    context = browser.new_context(
        base_url=live_server.url, viewport={"width": 1280, "height": 900}
    )
    page = context.new_page()
    problems = []
    page.on("pageerror", lambda error: problems.append(str(error)))
    page.on(
        "console",
        lambda message: (
            problems.append(message.text)
            if "Content Security Policy" in message.text
            else None
        ),
    )
    page.goto("/admin/login/")
    page.fill("#id_username", "staff")
    page.fill("#id_password", PASSWORD)
    page.click("input[type=submit]")
    yield page
    context.close()
    assert problems == []


def _positions(page) -> list[tuple[str, str]]:
    rows = page.locator("#authorships-group tbody tr.form-row:not(.empty-form)")
    return [
        (
            row.locator("td.field-position input").input_value(),
            row.locator("td.field-name input").input_value(),
        )
        for row in rows.all()
    ]


def test_the_authors_table_fits_and_its_controls_reorder_the_authors(staff_page):
    page = staff_page
    member = factories.person(display_name="Di Member", given_name="Di")
    paper = factories.publication(authors=["Ann First", "Bo Second", "Cy Third"])
    page.goto(f"/admin/publications/publication/{paper.pk}/change/")

    # At 1280 px, beside the navigation sidebar, nothing scrolls sideways and the
    # table stays within its fieldset; the authors come before the year.
    assert page.evaluate("document.documentElement.scrollWidth") <= 1280
    fieldset = page.locator("fieldset.authors").bounding_box()
    table = page.locator("fieldset.authors table").bounding_box()
    assert table["x"] + table["width"] <= fieldset["x"] + fieldset["width"] + 1
    assert fieldset["y"] < page.locator("#id_year").bounding_box()["y"]
    for name in ("name", "person"):
        cell = page.locator(f"#authorships-0 td.field-{name}").bounding_box()
        assert cell["width"] >= 150, f"the {name} column is squeezed"
    # The rows' hidden version column shows nothing, not even its heading.
    heading = page.locator("fieldset.authors thead").bounding_box()
    assert heading["height"] < 90, "a heading is written one letter per line"

    # A swap with the buttons, then a new author added at the end and moved first.
    page.locator("#authorships-0").get_by_role("button", name="Move down").click()
    assert _positions(page) == [
        ("1", "Bo Second"),
        ("2", "Ann First"),
        ("3", "Cy Third"),
        ("4", ""),
    ]
    # The page has one empty row (#authorships-3) for typing without JavaScript;
    # the added one is numbered after it.
    page.get_by_role("button", name="Add another author").click()
    new = page.locator("#authorships-4")
    assert new.locator("td.field-position input").input_value() == "5"
    for _ in range(4):
        new.get_by_role("button", name="Move up").click()
    # Picking the member fills in the printed name.
    new.locator("td.field-person .select2-selection").click()
    page.locator(".select2-container--open .select2-search__field").fill("Di")
    page.locator(".select2-results__option", has_text="Di Member").click()
    assert _positions(page) == [
        ("1", "Di Member"),
        ("2", "Bo Second"),
        ("3", "Ann First"),
        ("4", "Cy Third"),
        ("5", ""),
    ]
    page.locator("input[name=_continue]").click()
    page.wait_for_selector(".messagelist .success")

    authors = Publication.objects.get(pk=paper.pk).authorships.order_by("position")
    assert [(a.position, a.name) for a in authors] == [
        (1, "Di Member"),
        (2, "Bo Second"),
        (3, "Ann First"),
        (4, "Cy Third"),
    ]
    assert authors[0].person == member


def test_a_members_tables_fit_the_page_at_1280(staff_page):
    member = factories.person()
    member.links.create(kind="homepage", url="https://example.org/" + "a" * 60)
    member.service.create(kind="reviewer", role="Reviewer", venue="NeurIPS 2025")
    member.interests.create(title="Sports", description="Tennis.")
    staff_page.goto(f"/admin/people/person/{member.pk}/change/")
    assert staff_page.evaluate("document.documentElement.scrollWidth") <= 1280
