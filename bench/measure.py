"""Measure pages and API endpoints through the whole Django stack on one database.

Run by bench/run.py once per database and size; prints one JSON document.
"""

import json
import os
import sqlite3
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "directory.settings")
os.environ.setdefault("DEBUG", "0")
os.environ.setdefault(
    "SECRET_KEY", "bench-only-secret-key-0123456789abcdefghijklmnopqrstuvwxyz"
)
os.environ.setdefault("SECURE_SSL_REDIRECT", "0")
# One client asks for hundreds of API pages a minute; the throttles would answer 429.
os.environ.setdefault("API_ANON_RATE", "100000000/minute")
os.environ.setdefault("API_USER_RATE", "100000000/minute")

from django.core.cache import cache  # noqa: E402
from django.db import connection  # noqa: E402
from django.db.models import Count  # noqa: E402
from django.test import Client  # noqa: E402

# The application as a WSGI server loads it (settings, views, collector set-up).
import directory.wsgi  # noqa: E402, F401
from core.cache import VERSION_KEY, data_version  # noqa: E402
from people.models import Person  # noqa: E402
from publications.models import Publication  # noqa: E402
from search.api import FacetedViewSet  # noqa: E402
from search.engines import get_engine  # noqa: E402
from search.query import parse  # noqa: E402

WARMUP = 3
# p95 of 60 is the third slowest: steadier than the second slowest of 30 on
# shared machines, where a single slow request otherwise decides it.
RUNS = int(os.environ.get("BENCH_RUNS", "60"))
# The first request after a write, every cached result stale: p95 of 20.
COLD_RUNS = 20


def share(term: str, model=Publication) -> str:
    """The share of the records that a search term matches, as a percentage."""
    matches = get_engine().count(model, parse(term))
    return f"{100 * matches / model.objects.count():.0f}%"


def endpoints() -> list[tuple[str, str]]:
    prolific = (
        Person.objects.annotate(n=Count("authorships"))
        .order_by("-n")
        .values_list("slug", "n")[0]
    )
    topic = Person.objects.values_list("topics__parent__slug", flat=True).exclude(
        topics__parent__slug=None
    )[0]
    paper = Publication.objects.order_by("pk").values_list("slug", flat=True)[0]
    venue = (
        Publication.objects.values_list("venue__slug", flat=True)
        .exclude(venue=None)
        .annotate(n=Count("id"))
        .order_by("-n", "venue__slug")[0]
    )
    return [
        ("home", "/"),
        ("people page", "/people/"),
        (
            f"people search, word in {share('learning', Person)} of members, + topic",
            f"/people/?q=learning&topic={topic}",
        ),
        (
            "people search + 2 facets",
            f"/people/?q=efficient&topic={topic}&role=phd_student",
        ),
        (
            "publications search + year + venue",
            f"/publications/?q=caching&year=2024&venue={venue}",
        ),
        (
            f"search page, term in {share('efficient')} of papers",
            "/search/?q=efficient",
        ),
        (f"search page, term in {share('paper')} of papers", "/search/?q=paper"),
        (
            f"profile of the most prolific member ({prolific[1]} papers)",
            f"/people/{prolific[0]}/",
        ),
        ("publication page", f"/publications/{paper}/"),
        ("API people ?q + facets", "/api/people/?q=sparse&facets=topic,role"),
        ("API publications list, 2 years", "/api/publications/?year=2024&year=2023"),
        (
            "API publications 3 facets, 50/page",
            "/api/publications/?facets=year,venue,topic&page_size=50",
        ),
        ("API publication as BibTeX", f"/api/publications/{paper}/?format=bibtex"),
        ("publications page 1", "/publications/"),
        (
            f"publications search, word in {share('learning')} of papers",
            "/publications/?q=learning",
        ),
        ("publications page 200", "/publications/?page=200"),
    ]


def http_paths(pages: list[tuple[str, str]]) -> dict:
    """What bench/serve.py requests over HTTP: two pages for throughput, and a mix
    of searches, profiles, papers and API lists and details for the load test."""
    by_name = dict(pages)
    people = Person.objects.order_by("pk").values_list("slug", flat=True)[::997]
    papers = Publication.objects.order_by("pk").values_list("slug", flat=True)[::9973]
    terms = ["efficient", "caching", "sparse kernels", "robust inference", "federated"]
    mix = [f"/search/?q={t.replace(' ', '+')}" for t in terms]
    mix += [f"/people/?q={t.replace(' ', '+')}" for t in terms[:2]]
    mix += [f"/people/{slug}/" for slug in people]
    mix += [f"/publications/{slug}/" for slug in papers[:5]]
    mix += [f"/api/publications/{slug}/" for slug in papers[5:]]
    mix += ["/api/publications/", "/api/people/?role=phd_student", "/publications/"]
    mix += [f"/api/publications/?year={y}" for y in (2019, 2022, 2025)]
    return {
        "api_list": by_name["API publications list, 2 years"],
        "faceted": by_name["people search + 2 facets"],
        "mix": mix,
    }


class Recorder:
    def __init__(self) -> None:
        self.statements: list[tuple[str, object]] = []
        self.sql_seconds = 0.0

    def __call__(self, execute, sql, params, many, context):
        started = time.perf_counter()
        try:
            return execute(sql, params, many, context)
        finally:
            self.sql_seconds += time.perf_counter() - started
            self.statements.append((sql, params))


def raw_floor(
    statements: list[tuple[str, object]], body: bytes, is_json: bool
) -> float:
    """Replay the request's SQL through the bare driver; add json for API pages."""
    started = time.perf_counter()
    if connection.vendor == "sqlite":
        raw = sqlite3.connect(connection.settings_dict["NAME"])
        for sql, params in statements:
            raw.execute(sql.replace("%s", "?"), params or ()).fetchall()
        raw.close()
    else:
        import psycopg

        # The connection is opened outside the timing, as a pool would hold it.
        raw = _pg_connection()
        started = time.perf_counter()
        with raw.cursor() as cursor:
            for sql, params in statements:
                cursor.execute(sql, params)
                if cursor.description:
                    cursor.fetchall()
        raw.rollback()
        assert psycopg
    if is_json:
        json.dumps(json.loads(body))
    return time.perf_counter() - started


_PG = None


def _pg_connection():
    global _PG
    if _PG is None:
        import psycopg

        s = connection.settings_dict
        _PG = psycopg.connect(
            dbname=s["NAME"], user=s["USER"], host=s["HOST"], port=s["PORT"] or 5432
        )
    return _PG


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


def measure(name: str, url: str, client: Client) -> dict:
    for _ in range(WARMUP):
        response = client.get(url)
        assert response.status_code == 200, (url, response.status_code)
    times, sql_times, queries, floors = [], [], [], []
    for _ in range(RUNS):
        recorder = Recorder()
        with connection.execute_wrapper(recorder):
            started = time.perf_counter()
            response = client.get(url)
            times.append(time.perf_counter() - started)
        sql_times.append(recorder.sql_seconds)
        queries.append(len(recorder.statements))
        if len(floors) < 10:
            is_json = response["Content-Type"].startswith("application/json")
            floors.append(raw_floor(recorder.statements, response.content, is_json))
    p50 = statistics.median(times)
    floor = statistics.median(floors)
    cold = cold_times(url, client)
    return {
        "name": name,
        "url": url,
        "p50_ms": round(p50 * 1000, 2),
        "p95_ms": round(percentile(times, 0.95) * 1000, 2),
        "queries": max(queries),
        "sql_ms": round(statistics.median(sql_times) * 1000, 2),
        "sql_share": round(statistics.median(sql_times) / p50, 3),
        "floor_ms": round(floor * 1000, 2),
        "stack_over_floor": round(p50 / floor, 2) if floor else None,
        "after_write_p50_ms": round(statistics.median(cold) * 1000, 2),
        "after_write_p95_ms": round(percentile(cold, 0.95) * 1000, 2),
        "after_write_max_ms": round(max(cold) * 1000, 2),
    }


def cold_times(url: str, client: Client) -> list[float]:
    """The request as the first visitor after a write makes it: every cached
    result is of an older data version (before any background recount)."""
    times = []
    for _ in range(COLD_RUNS):
        cache.incr(VERSION_KEY)
        started = time.perf_counter()
        response = client.get(url)
        times.append(time.perf_counter() - started)
        assert response.status_code == 200, (url, response.status_code)
    return times


def main() -> None:
    client = Client(HTTP_HOST="127.0.0.1")
    data_version()  # the version key exists, so that it can be incremented
    pages = endpoints()
    results = [measure(name, url, client) for name, url in pages]
    # Anonymous JSON lists are remembered until the next write: measure building
    # them as well (what a signed-in client, or the first client after a write,
    # waits for), so that the stack/floor ratio still describes the code.
    FacetedViewSet.response_is_shared = lambda self, request: False
    results += [
        measure(f"{name}, built each time", url, client)
        for name, url in pages
        if url.startswith("/api/") and "format=" not in url
    ]
    print(
        json.dumps(
            {
                "vendor": connection.vendor,
                "results": results,
                "http_paths": http_paths(pages),
            }
        )
    )


if __name__ == "__main__":
    main()
