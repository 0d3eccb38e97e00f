"""The main journeys in a real browser (Chromium driven by Playwright)."""

import io
import re
from pathlib import Path

import pytest
from PIL import Image

pytestmark = pytest.mark.e2e
AXE = Path(__file__).parent / "vendor" / "axe-4.14.1.min.js"


def _count(page) -> int:
    return int(re.match(r"\d+", page.locator(".count").first.inner_text()).group())


def test_search_select_and_clear_facets_with_back_button(page, lab):
    page.goto("/people/?q=attention")
    before = _count(page)
    assert before >= 2
    page.locator("a.facet-option", has_text="PhD student").first.click()
    page.wait_for_url(re.compile(r"role=phd_student"))
    assert _count(page) < before
    assert page.locator(".chip.removable", has_text="PhD student").is_visible()
    page.go_back()
    page.wait_for_url(re.compile(r"/people/\?q=attention$"))
    page.wait_for_function(
        f"document.querySelector('.count').textContent.startsWith('{before}')"
    )
    page.go_forward()
    page.wait_for_url(re.compile(r"role=phd_student"))
    page.get_by_role("link", name="Clear all").click()
    page.wait_for_url(re.compile(r"/people/$"))
    assert _count(page) == 4


def test_facets_work_without_javascript(browser, live_server, lab):
    context = browser.new_context(base_url=live_server.url, java_script_enabled=False)
    page = context.new_page()
    page.goto("/publications/?q=quantization")
    page.locator("a.facet-option", has_text="2026").first.click()
    assert "year=2026" in page.url
    assert "publication" in page.locator(".count").inner_text()
    context.close()


def test_open_a_profile_and_copy_a_bibtex_entry(page, lab):
    page.goto("/people/")
    page.get_by_role("link", name=re.compile("Jingwei Zuo")).first.click()
    page.wait_for_url(re.compile("/people/jingwei-zuo/"))
    assert page.get_by_role("heading", name=re.compile("Jingwei Zuo")).is_visible()
    page.get_by_role("link", name=re.compile("DuoAttention")).first.click()
    page.wait_for_url(re.compile("/publications/duoattention/"))
    copy = page.get_by_role("button", name=re.compile("Copy BibTeX", re.I))
    copy.click()
    page.wait_for_function("document.body.innerText.includes('Copied')")
    copied = page.evaluate("navigator.clipboard.readText()")
    assert copied.startswith("@inproceedings") and "Zuo, Jingwei" in copied


@pytest.mark.parametrize(
    "path", ["/", "/people/", "/people/zhongzhu-zhou/", "/publications/", "/events/"]
)
def test_narrow_mobile_viewport_has_no_horizontal_scroll(page, lab, path):
    page.set_viewport_size({"width": 360, "height": 740})
    page.goto(path)
    overflow = page.evaluate(
        "document.documentElement.scrollWidth - document.documentElement.clientWidth"
    )
    assert overflow <= 0, path


@pytest.mark.parametrize(
    "path",
    [
        "/",
        "/people/",
        "/people/jingwei-zuo/",
        "/publications/?q=attention",
        "/publications/duoattention/",
        "/events/",
        "/search/?q=quantization",
    ],
)
def test_no_serious_accessibility_violations(page, lab, path):
    page.goto(path)
    page.add_script_tag(path=str(AXE))
    result = page.evaluate("axe.run(document, {resultTypes: ['violations']})")
    serious = [
        (v["id"], v["impact"], len(v["nodes"]))
        for v in result["violations"]
        if v["impact"] in ("serious", "critical")
    ]
    assert not serious, serious


def _png() -> bytes:
    buffer = io.BytesIO()
    Image.new("RGB", (300, 300), (30, 90, 200)).save(buffer, format="PNG")
    return buffer.getvalue()


def test_admin_creates_a_member_with_a_photo_and_a_paper_with_three_authors(
    page, lab, django_user_model, tmp_path
):
    django_user_model.objects.create_superuser(
        "staff", "s@example.org", "a-long-pw-123456"
    )
    page.goto("/admin/login/")
    page.fill("#id_username", "staff")
    page.fill("#id_password", "a-long-pw-123456")
    page.click("input[type=submit]")
    page.goto("/admin/people/person/add/")
    page.fill("#id_given_name", "Grace")
    page.fill("#id_family_name", "Hopper")
    page.fill("#id_display_name", "Grace Hopper")
    page.select_option("#id_role", "faculty")
    photo = tmp_path / "grace.png"
    photo.write_bytes(_png())
    page.set_input_files("#id_photo", str(photo))
    page.click("input[name=_save]")
    page.wait_for_url(re.compile(r"/admin/people/person/$"))
    assert page.locator(".messagelist").inner_text().count("added successfully") == 1

    page.goto("/admin/publications/publication/add/")
    page.fill("#id_title", "Compilers for everyone")
    # The slug is filled in from the title by the admin's own script.
    page.fill("#id_year", "2026")
    for index, name in enumerate(["Grace Hopper", "Lei Zhu", "Ada Lovelace"]):
        page.locator("#authorships-group .add-row a").click()
        page.fill(f"#id_authorships-{index}-position", str(index + 1))
        page.fill(f"#id_authorships-{index}-name", name)
    page.click("input[name=_save]")
    page.wait_for_url(re.compile(r"/admin/publications/publication/$"))

    response = page.goto("/publications/compilers-for-everyone/")
    assert response.status == 200, page.content()[:3000]
    authors = page.locator(".pub-authors").first.inner_text()
    assert (
        authors.index("Grace Hopper") < authors.index("Lei Zhu") < authors.index("Ada")
    )
    page.goto("/people/grace-hopper/")
    assert page.locator("img.avatar").first.get_attribute("src").startswith("/media/")
