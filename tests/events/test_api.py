import datetime

import pytest
from rest_framework.test import APIClient

from tests import factories


@pytest.fixture
def api():
    return APIClient()


def test_event_lists_its_people_and_date_precision(api, demo_lab):
    data = api.get("/api/events/", {"person": "lei-zhu", "kind": "talk"}).json()
    [talk] = data["results"]
    assert talk["date"] == "2024-11-14" and talk["date_precision"] == "day"
    assert talk["people"][0]["slug"] == "lei-zhu"


def test_when_filter_splits_upcoming_and_past(api, db):
    factories.event(slug="future", date=datetime.date(2999, 1, 1))
    factories.event(slug="past", date=datetime.date(2001, 1, 1))
    upcoming = api.get("/api/events/", {"when": "upcoming"}).json()
    past = api.get("/api/events/", {"when": "past"}).json()
    assert [e["slug"] for e in upcoming["results"]] == ["future"]
    assert [e["slug"] for e in past["results"]] == ["past"]
    assert api.get("/api/events/", {"when": "tomorrow"}).status_code == 400


@pytest.mark.parametrize(
    "params",
    [{"kind": "talk"}, {"year": "2026"}, {"person": "zhongzhu-zhou"}, {"q": "COLM"}],
)
def test_each_filter_narrows_the_results(api, demo_lab, params):
    everything = api.get("/api/events/").json()["count"]
    narrowed = api.get("/api/events/", params).json()["count"]
    assert 0 < narrowed < everything


def test_event_facets_lead_to_their_counts(api, demo_lab):
    data = api.get("/api/events/", {"facets": "kind,year,when"}).json()
    for name, options in data["facets"].items():
        for option in options:
            narrowed = api.get("/api/events/", {name: option["value"]}).json()
            assert narrowed["count"] == option["count"]
