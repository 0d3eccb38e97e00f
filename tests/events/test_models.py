import datetime

import pytest
from django.db import IntegrityError, transaction

from events.models import Event
from tests import factories


@pytest.mark.django_db
def test_upcoming_and_past_split_on_the_given_day():
    today = datetime.date(2026, 12, 1)
    soon = factories.event(date=datetime.date(2026, 12, 5))
    before = factories.event(date=datetime.date(2026, 8, 1))
    assert list(Event.objects.upcoming(today)) == [soon]
    assert list(Event.objects.past(today)) == [before]


@pytest.mark.django_db
def test_event_cannot_end_before_it_starts():
    with pytest.raises(IntegrityError), transaction.atomic():
        factories.event(
            date=datetime.date(2026, 5, 2), end_date=datetime.date(2026, 5, 1)
        )


@pytest.mark.django_db
def test_month_precision_renders_without_a_day():
    event = factories.event(date=datetime.date(2026, 4, 1), date_precision="month")
    assert event.date_display == "Apr 2026"


@pytest.mark.django_db
def test_news_leaves_out_talks_seminars_and_panels():
    news = factories.event(kind="news")
    accepted = factories.event(kind="paper")
    for kind in ("talk", "seminar", "panel"):
        factories.event(kind=kind)
    assert set(Event.objects.news()) == {news, accepted}
    assert {e.kind for e in Event.objects.talks()} == {"talk", "seminar", "panel"}
