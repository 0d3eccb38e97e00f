"""EventFilter on its own, from plain dicts, as the page and the API use it."""

import datetime

from django.utils import timezone

from events.filters import EventFilter
from events.models import Event
from tests import factories


def _slugs(data: dict) -> list[str]:
    return [e.slug for e in EventFilter(data, queryset=Event.objects.all()).qs]


def test_when_splits_upcoming_from_past_at_today(db):
    today = timezone.localdate()
    factories.event(slug="today", date=today)
    factories.event(slug="tomorrow", date=today + datetime.timedelta(days=1))
    factories.event(slug="yesterday", date=today - datetime.timedelta(days=1))

    assert sorted(_slugs({"when": "upcoming"})) == ["today", "tomorrow"]
    assert _slugs({"when": "past"}) == ["yesterday"]


def test_person_finds_the_events_a_member_took_part_in(db):
    member = factories.person(slug="member")
    factories.event(slug="talk").people.add(member)
    factories.event(slug="other")

    assert _slugs({"person": ["member"]}) == ["talk"]


def test_kind_and_year_combine(db):
    factories.event(slug="talk-2024", kind="talk", date=datetime.date(2024, 5, 1))
    factories.event(slug="news-2024", kind="news", date=datetime.date(2024, 6, 1))
    factories.event(slug="talk-2025", kind="talk", date=datetime.date(2025, 5, 1))

    assert _slugs({"kind": ["talk"], "year": ["2024"]}) == ["talk-2024"]


def test_oldest_first_on_request(db):
    factories.event(slug="late", date=datetime.date(2025, 5, 1))
    factories.event(slug="early", date=datetime.date(2024, 5, 1))

    assert _slugs({}) == ["late", "early"]
    assert _slugs({"sort": "oldest"}) == ["early", "late"]


def test_when_facet_counts_both_sides_of_today(db):
    today = timezone.localdate()
    factories.event(date=today + datetime.timedelta(days=3))
    factories.event(date=today - datetime.timedelta(days=3))
    factories.event(date=today - datetime.timedelta(days=9))
    filterset = EventFilter({}, queryset=Event.objects.all())

    (when,) = filterset.facet_results(["when"])

    assert {o.value: o.count for o in when.options} == {"upcoming": 1, "past": 2}
