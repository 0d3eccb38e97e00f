import datetime

import pytest
from django.urls import reverse

from events.models import Event
from tests import factories

ADD = reverse("admin:events_event_add")


def _event_form(**overrides) -> dict:
    return {
        "kind": "talk",
        "title": "A talk",
        "slug": "a-talk",
        "links-TOTAL_FORMS": "0",
        "links-INITIAL_FORMS": "0",
        **overrides,
    }


@pytest.mark.parametrize(
    ("typed", "date", "precision", "shown"),
    [
        ("2025", datetime.date(2025, 1, 1), "year", "2025"),
        ("2025-09", datetime.date(2025, 9, 1), "month", "Sep 2025"),
        ("2025-09-19", datetime.date(2025, 9, 19), "day", "Sep 19, 2025"),
    ],
)
def test_an_event_is_dated_as_precisely_as_typed(
    admin_client_logged_in, typed, date, precision, shown
):
    response = admin_client_logged_in.post(ADD, _event_form(date=typed))
    assert response.status_code == 302, response.content.decode()[:2000]
    event = Event.objects.get(slug="a-talk")
    assert (event.date, event.date_precision) == (date, precision)
    assert event.date_display == shown


def test_an_end_is_given_as_precisely_as_the_start(admin_client_logged_in):
    response = admin_client_logged_in.post(
        ADD, _event_form(date="2025-09-19", end_date="2025-10")
    )
    assert response.status_code == 200
    assert "Give this date as precisely as the one before it." in response.text
    response = admin_client_logged_in.post(
        ADD, _event_form(date="2025-09", end_date="2025-10")
    )
    assert response.status_code == 302
    assert Event.objects.get(slug="a-talk").date_display == "Sep 2025 – Oct 2025"


def test_an_event_opens_with_its_date_as_known(admin_client_logged_in):
    event = factories.event(date=datetime.date(2024, 11, 1), date_precision="month")
    url = reverse("admin:events_event_change", args=[event.pk])
    form = admin_client_logged_in.get(url).context["adminform"].form
    assert form["date"].value() == "2024-11"
    # Typed again as shown, the date is unchanged; given to the day, it changes.
    field, initial = form.fields["date"], form["date"].initial
    assert not field.has_changed(initial, "2024-11")
    assert field.has_changed(initial, "2024-11-01")


def test_a_stale_event_form_is_refused_with_a_message_whatever_its_date(
    admin_client_logged_in,
):
    event = factories.event(date=datetime.date(2024, 11, 1), date_precision="month")
    url = reverse("admin:events_event_change", args=[event.pk])
    form = admin_client_logged_in.get(url).context["adminform"].form
    data = _event_form(
        title=event.title,
        slug=event.slug,
        date="2024-11",
        loaded_version=form["loaded_version"].value(),
    )
    event.title = "Edited meanwhile"
    event.save()
    response = admin_client_logged_in.post(url, {**data, "title": "Mine"})
    assert response.status_code == 200
    assert "errornote" in response.text
    assert Event.objects.get(pk=event.pk).title == "Edited meanwhile"


def test_changelist_lists_the_events_with_a_link_without_an_address(
    admin_client_logged_in,
):
    named, linked = factories.event(), factories.event()
    named.links.create(kind="video", label="watch")
    linked.links.create(kind="video", url="https://example.org/video")
    page = admin_client_logged_in.get("/admin/events/event/", {"links": "no_address"})
    assert list(page.context["cl"].result_list) == [named]
