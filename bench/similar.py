"""Similar researchers at scale: the bulk computation and one stale member's
recompute on read.

Run by bench/run.py on the full generated lab, with DATABASE_URL pointing at it.
Prints one JSON document: the bulk runs (median of three, all shown) with the
share spent reading what describes every member, and the first read of a stale
member's list (the most prolific member, median of three).
"""

import json
import os
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "directory.settings")

import django  # noqa: E402

django.setup()

from django.db.models import Count  # noqa: E402

from people.models import Person, SimilarPerson  # noqa: E402
from people.similarity import (  # noqa: E402
    compute_similar,
    load_features,
    mark_stale,
    similar_people,
)

RUNS = int(os.environ.get("BENCH_SIMILAR_RUNS", "3"))


def timed(function) -> float:
    started = time.perf_counter()
    function()
    return round(time.perf_counter() - started, 2)


def main() -> None:
    bulk = sorted(timed(compute_similar) for _ in range(RUNS))
    loading = sorted(timed(load_features) for _ in range(RUNS))
    prolific = (
        Person.objects.annotate(papers=Count("authorships"))
        .order_by("-papers", "pk")
        .first()
    )
    stale_reads = []
    for _ in range(RUNS):
        mark_stale({prolific.pk})
        stale_reads.append(timed(lambda: similar_people(prolific)))
    print(
        json.dumps(
            {
                "people": Person.objects.count(),
                "rows": SimilarPerson.objects.count(),
                "bulk_seconds": statistics.median(bulk),
                "bulk_runs": bulk,
                "loading_seconds": statistics.median(loading),
                "stale_read_seconds": statistics.median(sorted(stale_reads)),
                "stale_read_runs": sorted(stale_reads),
            }
        )
    )


if __name__ == "__main__":
    main()
