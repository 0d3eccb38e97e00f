"""Time the pictures' data and pages on a generated lab (`generate_lab`).

Usage: DATABASE_URL=sqlite:///var/bench.sqlite3 python bench/pictures.py
Each line: what, median of 5 cold runs (the cache cleared before each), queries.
"""

import os
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "directory.settings")
os.environ.setdefault("DEBUG", "1")

import django  # noqa: E402

django.setup()

from django.core.cache import cache  # noqa: E402
from django.db import connection  # noqa: E402
from django.db.models import Count  # noqa: E402
from django.test import Client  # noqa: E402
from django.test.utils import CaptureQueriesContext  # noqa: E402

from directory.views import topic_map  # noqa: E402
from people.models import Person  # noqa: E402
from people.network import coauthor_picture, group_picture  # noqa: E402
from publications.charts import publications_per_year  # noqa: E402

RUNS = 5


def measure(label: str, work) -> None:
    times, queries = [], 0
    for _ in range(RUNS):
        cache.clear()
        with CaptureQueriesContext(connection) as captured:
            start = time.perf_counter()
            work()
            times.append((time.perf_counter() - start) * 1000)
        queries = len(captured.captured_queries)
    print(f"{label}: {statistics.median(times):.0f} ms, {queries} queries")


def main() -> None:
    prolific = (
        Person.objects.annotate(n=Count("authorships"))
        .order_by("-n")
        .values_list("slug", "n")
        .first()
    )
    person = Person.objects.get(slug=prolific[0])
    client = Client(HTTP_HOST="localhost")
    print(f"people {Person.objects.count()}, most prolific {prolific}")
    measure("group network data and layout", group_picture)
    measure("topic map data and layout", topic_map)
    measure("co-authors of the most prolific", lambda: coauthor_picture(person))
    measure("publications per year, all", lambda: publications_per_year({}))
    measure("page /people/network/", lambda: client.get("/people/network/"))
    measure("page /topics/", lambda: client.get("/topics/"))
    measure(
        f"page /people/{person.slug}/", lambda: client.get(f"/people/{person.slug}/")
    )


if __name__ == "__main__":
    main()
