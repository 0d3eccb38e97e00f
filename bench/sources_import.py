"""OpenAlex at scale: import N works for 20 members, re-import them, and queue them.

Run with DATABASE_URL pointing at an empty, migrated database (SQLite or
PostgreSQL); N defaults to 1000. The works are copies of the recorded sample in
tests/sources/samples with their own ids, DOIs and titles. Prints one JSON document.
"""

import copy
import json
import os
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "directory.settings")

import django  # noqa: E402

django.setup()

from people.models import Person  # noqa: E402
from publications.models import Publication  # noqa: E402
from sources.importer import import_openalex  # noqa: E402
from sources.models import Candidate  # noqa: E402
from sources.openalex import parse_work  # noqa: E402


def works(n: int) -> list:
    sample = json.loads(
        (ROOT / "tests/sources/samples/openalex_work.json").read_text(encoding="utf-8")
    )
    found = []
    for i in range(n):
        work = copy.deepcopy(sample)
        work["id"] = f"https://openalex.org/W{9000000 + i}"
        work["doi"] = f"https://doi.org/10.5555/bench.{i}"
        work["title"] = f"Benchmark work number {i}"
        work["locations"] = []  # the sample's arXiv copy would make them one work
        work["open_access"]["oa_url"] = f"https://example.org/bench/{i}.pdf"
        first = work["authorships"][0]["author"]
        first["orcid"] = None
        first["id"] = f"https://openalex.org/A{7000000 + i % 20}"
        found.append(parse_work(work))
    return found


def timed(fn) -> tuple[float, object]:
    started = time.perf_counter()
    result = fn()
    return round(time.perf_counter() - started, 2), result


def main() -> None:
    n = int(os.environ.get("N", "1000"))
    Candidate.objects.all().delete()
    Publication.objects.all().delete()
    Person.objects.filter(slug__startswith="bench-").delete()
    for m in range(20):
        Person.objects.create(
            given_name="Bench",
            family_name=f"Member{m}",
            display_name=f"Bench Member{m}",
            slug=f"bench-{m}",
            role="researcher",
            openalex_id=f"A{7000000 + m}",
        )
    records = works(n)
    queued, report = timed(lambda: import_openalex(records, []))
    queued_again, again = timed(lambda: import_openalex(records, []))
    Candidate.objects.all().delete()
    accepted, _ = timed(lambda: import_openalex(records, [], accept=True))
    reimport, same = timed(lambda: import_openalex(records, [], accept=True))
    print(
        json.dumps(
            {
                "vendor": django.db.connection.vendor,
                "works": n,
                "review_seconds": queued,
                "review_candidates": len(report.candidates),
                "review_again_seconds": queued_again,
                "review_again_new_candidates": len(again.candidates),
                "accept_seconds": accepted,
                "publications": Publication.objects.count(),
                "reimport_seconds": reimport,
                "reimport_unchanged": same.unchanged,
            },
            indent=1,
        )
    )


if __name__ == "__main__":
    main()
