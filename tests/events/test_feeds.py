import datetime
import re

import feedparser
import icalendar
import pytest

from events.models import Event
from tests import factories


def _calendar(client, url: str) -> icalendar.Calendar:
    response = client.get(url)
    assert response.status_code == 200
    assert response["Content-Type"] == "text/calendar; charset=utf-8"
    calendar = icalendar.Calendar.from_ical(response.content)
    assert calendar.errors == []
    return calendar


def _events(calendar: icalendar.Calendar) -> dict[str, icalendar.Event]:
    return {str(e["URL"]).split("/events/")[1]: e for e in calendar.events}


def test_news_feed_is_atom_with_every_news_item_and_no_talks(client, demo_lab):
    response = client.get("/events/feed/")

    assert response["Content-Type"].startswith("application/atom+xml")
    feed = feedparser.parse(response.content)
    assert not feed.bozo
    assert feed.version == "atom10"
    assert feed.feed.title.endswith(": news")
    news = list(Event.objects.news().order_by("-date", "-id"))
    assert [entry.title for entry in feed.entries] == [e.title for e in news]
    assert not {e.title for e in Event.objects.talks()} & {
        entry.title for entry in feed.entries
    }


def test_news_entries_link_to_their_pages_with_their_dates(client, demo_lab):
    feed = feedparser.parse(client.get("/events/feed/").content)
    entry = next(e for e in feed.entries if e.title == "DeepDiverV2 open-sourced")

    assert entry.link == "http://testserver/events/2025-09-12-deepdiverv2-open-source/"
    assert entry.id == entry.link
    assert entry.published_parsed[:3] == (2025, 9, 12)
    assert entry.updated_parsed is not None
    assert entry.author == "Lei Zhu"
    assert "multi-agent deep research" in entry.summary
    assert {tag.term for tag in entry.tags} == {"Agentic AI", "Multi-agent systems"}


def test_news_feed_escapes_markup_in_titles(client, db):
    factories.event(kind="news", title="<b>Bold</b> & more", description="*hi*")

    feed = feedparser.parse(client.get("/events/feed/").content)

    assert not feed.bozo
    assert feed.entries[0].title == "<b>Bold</b> & more"
    assert "<em>hi</em>" in feed.entries[0].summary


def test_site_calendar_is_valid_icalendar(client, demo_lab):
    calendar = _calendar(client, "/events/calendar.ics")

    assert calendar["VERSION"] == "2.0"
    assert "Lab directory" in calendar["PRODID"]
    datable = Event.objects.exclude(date_precision="year")
    assert len(calendar.events) == datable.count()
    for event in calendar.events:
        assert {"UID", "DTSTAMP", "DTSTART", "DTEND", "SUMMARY"} <= set(event)
        assert event["UID"].endswith("@testserver")


def test_day_precision_events_are_all_day_and_end_the_next_day(client, demo_lab):
    content = client.get("/events/calendar.ics").content.decode()
    talk = _events(icalendar.Calendar.from_ical(content))[
        "2024-11-14-efficient-attention-mechanisms-talk-ucsd/"
    ]

    assert talk["DTSTART"].params["VALUE"] == "DATE"
    assert talk.start == datetime.date(2024, 11, 14)
    assert talk.end == datetime.date(2024, 11, 15)
    assert "DTSTART;VALUE=DATE:20241114" in content
    assert str(talk["TRANSP"]) == "OPAQUE"
    assert str(talk["SUMMARY"]) == "Efficient Attention Mechanisms"


def test_month_precision_events_cover_their_month_without_blocking_it(client, db):
    factories.event(
        slug="spring-talk",
        kind="talk",
        date=datetime.date(2026, 4, 1),
        date_precision="month",
    )

    event = _events(_calendar(client, "/events/calendar.ics"))["spring-talk/"]

    assert (event.start, event.end) == (
        datetime.date(2026, 4, 1),
        datetime.date(2026, 5, 1),
    )
    assert str(event["TRANSP"]) == "TRANSPARENT"
    assert "known to the month: Apr 2026" in str(event["DESCRIPTION"])


def test_events_known_only_to_the_year_stay_off_the_calendar(client, db):
    factories.event(
        slug="some-time", date=datetime.date(2026, 1, 1), date_precision="year"
    )

    assert _calendar(client, "/events/calendar.ics").events == []


def test_multi_day_events_end_the_day_after_their_last_day(client, db):
    factories.event(
        slug="workshop",
        date=datetime.date(2025, 12, 30),
        end_date=datetime.date(2026, 1, 2),
    )

    event = _events(_calendar(client, "/events/calendar.ics"))["workshop/"]

    assert (event.start, event.end) == (
        datetime.date(2025, 12, 30),
        datetime.date(2026, 1, 3),
    )


def test_uids_are_stable_across_requests_and_edits(client, demo_lab):
    first = client.get("/events/calendar.ics").content
    assert client.get("/events/calendar.ics").content == first
    before = {
        str(e["URL"]): str(e["UID"]) for e in icalendar.Calendar.from_ical(first).events
    }
    talk = Event.objects.get(slug="2024-11-14-efficient-attention-mechanisms-talk-ucsd")
    other = Event.objects.exclude(pk=talk.pk).filter(date_precision="day").first()
    other.title = "Retitled"
    other.save()

    after = icalendar.Calendar.from_ical(client.get("/events/calendar.ics").content)

    assert {str(e["URL"]): str(e["UID"]) for e in after.events} == before
    unchanged = next(e for e in after.events if str(e["SUMMARY"]) == talk.title)
    assert unchanged.to_ical() in first


def test_an_event_keeps_its_uid_when_its_own_slug_changes(client, db):
    event = factories.event(slug="old-slug")
    uid = str(_calendar(client, "/events/calendar.ics").events[0]["UID"])
    event.slug = "new-slug"
    event.title = "New title"
    event.save()

    assert str(_calendar(client, "/events/calendar.ics").events[0]["UID"]) == uid


def test_member_calendar_holds_only_their_events(client, demo_lab):
    calendar = _calendar(client, "/people/lei-zhu/calendar.ics")

    assert len(calendar.events) == 5
    assert "Lei Zhu" in str(calendar["X-WR-CALNAME"])
    site = _calendar(client, "/events/calendar.ics")
    site_uids = {str(e["UID"]) for e in site.events}
    assert {str(e["UID"]) for e in calendar.events} <= site_uids


def test_member_calendar_of_an_unknown_member_is_not_found(client, db):
    assert client.get("/people/nobody/calendar.ics").status_code == 404


@pytest.mark.parametrize("url", ["/events/feed/", "/events/calendar.ics"])
def test_feeds_take_a_fixed_number_of_queries(
    client, db, url, django_assert_max_num_queries
):
    for _ in range(5):
        event = factories.event(kind="news")
        event.people.add(factories.person())
        event.topics.add(factories.topic())

    with django_assert_max_num_queries(4):
        client.get(url)


@pytest.mark.parametrize("url", ["/", "/people/", "/publications/", "/events/"])
def test_every_page_points_at_the_feeds_in_its_head(client, db, url):
    html = client.get(url).content.decode()
    head = html[: html.index("</head>")]

    assert re.search(
        r'<link rel="alternate" type="application/atom\+xml"[^>]*'
        r'href="/events/feed/">',
        head,
    )
    assert re.search(
        r'<link rel="alternate" type="text/calendar"[^>]*href="/events/calendar.ics">',
        head,
    )


def test_event_list_links_the_feeds_in_its_body(client, db):
    html = client.get("/events/").content.decode()
    body = html[html.index("<body") :]

    assert 'href="/events/feed/"' in body
    assert 'href="/events/calendar.ics"' in body
