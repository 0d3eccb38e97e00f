"""Time the publication serializer alone: 200 publications with authors, N times.

Usage: python bench/serialize.py [N]   (an in-memory SQLite database of its own)
Prints the median of N runs of serialising the page, in ms.
"""

import os
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "directory.settings")
os.environ.setdefault("DEBUG", "1")
os.environ["DATABASE_URL"] = "sqlite://:memory:"
# The in-memory database is one connection's: no warm-up thread beside it.
os.environ["WARM_CACHE_AFTER_WRITE"] = "0"

import django  # noqa: E402

django.setup()

from django.core.management import call_command  # noqa: E402
from rest_framework.test import APIRequestFactory  # noqa: E402

from people.models import Person  # noqa: E402
from publications.api.serializers import PublicationSerializer  # noqa: E402
from publications.models import Authorship, Publication, Venue  # noqa: E402

PUBLICATIONS = 200


def build() -> None:
    call_command("migrate", verbosity=0)
    people = Person.objects.bulk_create(
        Person(
            given_name="Ada",
            family_name=f"Tester{n}",
            display_name=f"Ada Tester{n}",
            slug=f"ada-tester-{n}",
        )
        for n in range(20)
    )
    venue = Venue.objects.create(name="Venue", short_name="V", slug="venue")
    pubs = Publication.objects.bulk_create(
        Publication(title=f"Paper {n}", slug=f"paper-{n}", year=2024, venue=venue)
        for n in range(PUBLICATIONS)
    )
    Authorship.objects.bulk_create(
        Authorship(
            publication=pub,
            position=position,
            name=people[(n + position) % len(people)].display_name,
            person=people[(n + position) % len(people)] if position % 2 else None,
        )
        for n, pub in enumerate(pubs)
        for position in range(1, 5)
    )


def main() -> None:
    runs = int(sys.argv[1]) if len(sys.argv) > 1 else 50
    build()
    request = APIRequestFactory().get("/api/publications/", HTTP_HOST="localhost")
    page = list(PublicationSerializer.queryset().order_by("pk"))
    assert len(page) == PUBLICATIONS
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        data = PublicationSerializer(page, many=True, context={"request": request}).data
        times.append((time.perf_counter() - start) * 1000)
    assert len(data[0]["authors"]) == 4
    print(
        f"serialize {PUBLICATIONS} publications with authors: "
        f"median {statistics.median(times):.1f} ms, min {min(times):.1f} ms "
        f"over {runs} runs"
    )


if __name__ == "__main__":
    main()
