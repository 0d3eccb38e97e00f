import datetime
import re

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse
from django.utils import timezone

from tests import factories

EMAIL = re.compile(r"[\w.+-]+@[\w-]+\.[\w.-]+")


def test_home_shows_members_news_and_publications(
    client, demo_lab, django_assert_max_num_queries
):
    # The page's own, the group record, and the conflicts of its papers.
    with django_assert_max_num_queries(14):
        response = client.get("/")
    assert response.status_code == 200
    html = response.content.decode()
    for name in ["Lei Zhu", "Jingwei Zuo", "S. Zheng", "Zhongzhu Zhou"]:
        assert name in html
    news = html[html.index("Latest news") : html.index("Upcoming events")]
    talks = html[html.index("Recent talks") : html.index("Recent publications")]
    assert "DeepDiverV2" in news
    assert (
        "Cornell RL Seminar Weekly" in talks and "Cornell RL Seminar Weekly" not in news
    )
    assert "Panel Discussion" not in news


def test_home_lists_are_rendered_once_until_the_next_write_or_day(
    client, demo_lab, django_assert_max_num_queries, monkeypatch
):
    client.get("/")
    with django_assert_max_num_queries(1):
        again = client.get("/")
    assert "Jingwei Zuo" in again.content.decode()
    factories.person(display_name="Newly Arrived", status="current")
    assert "Newly Arrived" in client.get("/").content.decode()
    # The next day, upcoming events may have become past ones.
    tomorrow = timezone.localdate() + datetime.timedelta(days=1)
    monkeypatch.setattr(timezone, "localdate", lambda: tomorrow)
    with CaptureQueriesContext(connection) as next_day:
        client.get("/")
    assert len(next_day.captured_queries) > 1


@pytest.mark.parametrize(
    "url",
    [
        "/",
        "/people/",
        "/publications/",
        "/events/",
        "/topics/efficient-ml/",
        "/search/?q=attention",
    ],
)
def test_no_page_shows_a_plain_email_address(client, demo_lab, url):
    html = client.get(url).content.decode()
    assert not EMAIL.search(html), EMAIL.search(html)


def test_topic_page_includes_subtopics(client, demo_lab):
    response = client.get(reverse("topic-detail", args=["quantization"]))
    html = response.content.decode()
    assert "KV cache quantization" in html  # a child topic
    assert "OSCAR" in html  # tagged with the child, found through the parent
    assert "Zhongzhu Zhou" in html


def test_unknown_topic_is_a_404_page(client, db):
    response = client.get("/topics/no-such-topic/")
    assert response.status_code == 404
    assert "Page not found" in response.content.decode()


def test_unknown_url_is_a_404_page(client, db):
    response = client.get("/nowhere/at/all/")
    assert response.status_code == 404
    assert "Page not found" in response.content.decode()


def test_search_finds_across_kinds(client, demo_lab):
    html = client.get("/search/", {"q": "DuoAttention"}).content.decode()
    assert "DuoAttention: Efficient Long-Context LLM Inference" in html


def test_server_error_page_is_plain_and_leaks_nothing(client, db, settings):
    settings.DEBUG = False
    client.raise_request_exception = False
    from directory import urls

    def boom(request):
        raise RuntimeError("secret detail")

    from django.urls import path

    urls.urlpatterns.append(path("boom/", boom))
    try:
        from django.urls import clear_url_caches

        clear_url_caches()
        response = client.get("/boom/")
    finally:
        urls.urlpatterns.pop()
        clear_url_caches()
    assert response.status_code == 500
    html = response.content.decode()
    assert "Something went wrong" in html
    assert "secret detail" not in html and "Traceback" not in html


@pytest.mark.parametrize(
    ("url", "section"),
    [
        ("/people/", "People"),
        ("/people/lei-zhu/", "People"),
        ("/publications/", "Publications"),
        ("/publications/duoattention/", "Publications"),
        ("/events/", "News &amp; events"),
        ("/", None),
    ],
)
def test_the_menu_marks_the_section_a_page_belongs_to(client, demo_lab, url, section):
    html = client.get(url).content.decode()
    current = re.findall(r'<a href="[^"]*" aria-current="page">([^<]*)</a>', html)
    assert current == ([section] if section else [])
