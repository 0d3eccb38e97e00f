"""What search by meaning adds to a search at scale, and what a worker holds.

    .venv/bin/python bench/semantic.py DATABASE_URL

On a generated lab (bench/run.py makes them: 10,000 people, 100,000 papers at full
size), time the people and publications API searches for 60 distinct queries,
keyword-only and then hybrid, each query asked once in each mode (so neither the
query's vector nor its ranking comes from a cache), and report p50/p95 and what
hybrid adds. Also the resident memory of this process once the model and every
vector are loaded, as a web worker holds them.

The stored vectors: the texts of the first VECTORS_EMBEDDED records of each kind
are embedded by the model; the others get seeded random unit vectors. What a
query costs depends on how many vectors there are, not on their values, and
embedding 110,000 documents on this machine takes hours (figures in the README).
"""

import itertools
import json
import os
import resource
import statistics
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
os.environ["DATABASE_URL"] = sys.argv[1]
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "directory.settings")
os.environ.setdefault("DEBUG", "0")
os.environ.setdefault("SECRET_KEY", "bench-only-secret-key-0123456789abcdefghijklmnop")
os.environ.setdefault("SECURE_SSL_REDIRECT", "0")
os.environ.setdefault("API_ANON_RATE", "100000000/minute")
# Writes here would race the background warm-up for the SQLite file.
os.environ.setdefault("WARM_CACHE_AFTER_WRITE", "0")

import django  # noqa: E402

django.setup()

from django.conf import settings  # noqa: E402
from django.core.cache import cache  # noqa: E402
from django.test import Client  # noqa: E402

from search import evidence, semantic  # noqa: E402
from search.indexing import index  # noqa: E402
from search.models import Embedding, Passage  # noqa: E402
from search.registry import searchables  # noqa: E402

VECTORS_EMBEDDED = 200
WORDS = (
    "efficient sparse attention quantization caching graph learning robust "
    "privacy federated vision language speech retrieval compression kernel "
    "scheduling memory energy fairness reinforcement diffusion protein climate"
).split()
# 60 distinct pairs of words: each query is asked once per mode, uncached.
QUERIES = [" ".join(pair) for pair in itertools.combinations(WORDS, 2)][::4][:60]
RESULTS = ROOT / "bench" / "results"


def rss_mb() -> float:
    """This process's resident memory now."""
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def worker_memory() -> dict[str, float]:
    """A new process as a web worker: the app loaded, then one search of each kind."""
    before = rss_mb()
    settings.SEMANTIC_SEARCH = True
    client = Client()
    for path in ("/api/people/", "/api/publications/"):
        client.get(
            path, {"q": "sparse attention", "format": "json"}, HTTP_HOST="127.0.0.1"
        )
    return {
        "app loaded": round(before, 1),
        "after a search of each kind": round(rss_mb(), 1),
    }


def fill_vectors() -> dict[str, int]:
    counts = {}
    rng = np.random.default_rng(1)
    for kind, searchable in searchables().items():
        ids = list(searchable.model.objects.order_by("pk").values_list("pk", flat=True))
        have = set(
            Embedding.objects.filter(kind=kind).values_list("record_id", flat=True)
        )
        settings.SEMANTIC_SEARCH = True
        embedded = [pk for pk in ids[:VECTORS_EMBEDDED] if pk not in have]
        if embedded:
            index(kind, embedded)
        rows = []
        for pk in ids[VECTORS_EMBEDDED:]:
            if pk in have:
                continue
            vector = rng.standard_normal(384).astype(np.float32)
            scale, data = semantic._quantised(vector / np.linalg.norm(vector))
            rows.append(
                Embedding(
                    kind=kind, record_id=pk, digest="random", scale=scale, vector=data
                )
            )
        Embedding.objects.bulk_create(rows, batch_size=5000)
        counts[kind] = Embedding.objects.filter(kind=kind).count()
    counts["person passages"] = fill_passages(rng)
    return counts


def fill_passages(rng) -> int:
    """Every member's passages (search.evidence), written by the real write path;
    past the first VECTORS_EMBEDDED members their texts get random vectors."""
    from people.models import Person

    ids = set(Person.objects.values_list("pk", flat=True))
    missing = ids - set(Passage.objects.values_list("owner_id", flat=True))

    def random_vectors(texts):
        for text in texts:
            vector = rng.standard_normal(384).astype(np.float32)
            yield (
                semantic.digest(text),
                *semantic._quantised(vector / np.linalg.norm(vector)),
            )

    real = semantic.vectors
    semantic.vectors = lambda texts: list(random_vectors(texts))
    try:
        evidence.store("person", missing, missing)
    finally:
        semantic.vectors = real
    return Passage.objects.filter(vector__isnull=False).count()


def timings(client: Client, path: str) -> list[float]:
    times = []
    for query in QUERIES:
        started = time.perf_counter()
        response = client.get(
            path, {"q": query, "format": "json"}, HTTP_HOST="127.0.0.1"
        )
        times.append((time.perf_counter() - started) * 1000)
        assert response.status_code == 200, response.status_code
    return times


def summary(times: list[float]) -> dict[str, float]:
    ordered = sorted(times)
    return {
        "p50": round(statistics.median(ordered), 1),
        "p95": round(ordered[int(len(ordered) * 0.95) - 1], 1),
    }


def main() -> None:
    if "--memory" in sys.argv:
        print(json.dumps(worker_memory()))
        return
    vectors = fill_vectors()
    client = Client()
    report = {"vectors": vectors, "queries": len(QUERIES), "paths": {}}
    for path in ("/api/people/", "/api/publications/"):
        settings.SEMANTIC_SEARCH = False
        cache.clear()
        keyword = summary(timings(client, path))
        settings.SEMANTIC_SEARCH = True
        cache.clear()
        for searchable in searchables().values():  # the model and every matrix
            semantic.nearest(searchable.model, "warm up")
        evidence.meaning("person", "warm up")
        hybrid = summary(timings(client, path))
        report["paths"][path] = {
            "keyword": keyword,
            "hybrid": hybrid,
            "added p95": round(hybrid["p95"] - keyword["p95"], 1),
        }
    memory = subprocess.run(
        [sys.executable, __file__, sys.argv[1], "--memory"],
        check=True,
        capture_output=True,
        text=True,
    )
    report["worker RSS MB"] = json.loads(memory.stdout.strip().splitlines()[-1])
    print(json.dumps(report, indent=1))
    RESULTS.mkdir(parents=True, exist_ok=True)
    (RESULTS / "semantic-scale.json").write_text(json.dumps(report, indent=1) + "\n")


if __name__ == "__main__":
    main()
