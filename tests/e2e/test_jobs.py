"""Starting a job from the admin and watching its page follow it to the end."""

import re

import pytest

from jobs.models import Job
from jobs.registry import get_kind
from jobs.runner import execute

pytestmark = pytest.mark.e2e


def test_a_job_started_in_the_admin_is_followed_until_done_without_javascript(
    browser, live_server, transactional_db, redis_queue, django_user_model
):
    django_user_model.objects.create_superuser(
        "staff", "s@example.org", "a-long-pw-123456"
    )
    # The page must follow the job by reloading itself, not by script.
    context = browser.new_context(base_url=live_server.url, java_script_enabled=False)
    page = context.new_page()
    page.goto("/admin/login/")
    page.fill("#id_username", "staff")
    page.fill("#id_password", "a-long-pw-123456")
    page.click("input[type=submit]")

    page.goto("/admin/jobs/job/")
    button = page.get_by_role("button", name="Rebuild the search index")
    box = button.bounding_box()
    assert box["width"] > 100 and box["height"] > 10
    button.click()

    page.wait_for_url(re.compile(r"/admin/jobs/job/\d+/change/$"))
    assert page.get_by_role("heading", name="Queued", exact=True).is_visible()
    assert "is queued." in page.locator(".messagelist").inner_text()
    # A worker takes the job: here, the test itself runs it.
    execute(get_kind("search.rebuild_index"), Job.objects.get().pk)
    page.get_by_role("heading", name="Done", exact=True).wait_for(timeout=10_000)
    assert page.get_by_text("Indexed 0 event, 0 person, 0 publication.").count() >= 1
    assert page.locator("progress").get_attribute("value") == "3"
    context.close()
