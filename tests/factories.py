"""Small builders for test records; each takes overrides as keywords."""

import datetime
import itertools

from django.core.management import call_command

from core.models import Organization, Topic
from events.models import Event
from people.models import Person
from publications.models import Authorship, Publication, Venue
from search.indexing import deferred

_counter = itertools.count(1)


def topic(**fields) -> Topic:
    n = next(_counter)
    return Topic.objects.create(
        **{"name": f"Topic {n}", "slug": f"topic-{n}", **fields}
    )


def organization(**fields) -> Organization:
    n = next(_counter)
    return Organization.objects.create(
        **{"name": f"Org {n}", "slug": f"org-{n}", "kind": "university", **fields}
    )


def person(**fields) -> Person:
    n = next(_counter)
    defaults = {
        "given_name": "Ada",
        "family_name": f"Tester{n}",
        "display_name": f"Ada Tester{n}",
        "slug": f"ada-tester-{n}",
        "role": "phd_student",
    }
    return Person.objects.create(**{**defaults, **fields})


def venue(**fields) -> Venue:
    n = next(_counter)
    return Venue.objects.create(
        **{"name": f"Venue {n}", "short_name": f"V{n}", "slug": f"venue-{n}", **fields}
    )


@deferred()
def publication(*, authors: list | None = None, **fields) -> Publication:
    """A paper and its authors (members or printed names), indexed once, as the
    admin and imports write them: a conference paper published in 2024 unless
    `fields` say otherwise (the model itself defaults to "not stated")."""
    n = next(_counter)
    typical = {
        "title": f"Paper {n}",
        "slug": f"paper-{n}",
        "year": 2024,
        "kind": Publication.Kind.CONFERENCE_PAPER,
        "status": Publication.Status.PUBLISHED,
    }
    pub = Publication.objects.create(**{**typical, **fields})
    for position, author in enumerate(authors or [], start=1):
        if isinstance(author, Person):
            Authorship.objects.create(
                publication=pub,
                position=position,
                name=author.display_name,
                person=author,
            )
        else:
            Authorship.objects.create(publication=pub, position=position, name=author)
    return pub


def event(**fields) -> Event:
    n = next(_counter)
    return Event.objects.create(
        **{
            "title": f"Event {n}",
            "slug": f"event-{n}",
            "date": datetime.date(2025, 1, n % 28 + 1),
            **fields,
        }
    )


def demo_lab() -> None:
    """The four seed members, loaded from demo/ as `make run` does."""
    call_command("load_demo", verbosity=0)
