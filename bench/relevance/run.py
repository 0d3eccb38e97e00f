"""How well search finds what a visitor means: Recall@5, MRR and nDCG@10.

Runs the judged queries of bench/relevance/demo.yaml against the demo lab, loaded
into a new SQLite database, through the API's people and publications lists (the
same filters and ranking as the pages). Prints a table per kind of query and
writes bench/results/relevance-<mode>.json; the mode is "hybrid" when
SEMANTIC_SEARCH=1, else "keyword".

    .venv/bin/python bench/relevance/run.py [--verbose]
"""

import json
import math
import os
import re
import sys
import tempfile
from collections import defaultdict
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[2]
HERE = Path(__file__).resolve().parent
RESULTS = ROOT / "bench" / "results"
ENDPOINTS = {"people": "/api/people/", "publications": "/api/publications/"}
DEPTH = 10
STOPWORDS = set(
    "a an and as at by for from in into is it its of on or that the their this to "
    "with who whose where what how all only same very most few plus every each "
    "instead one ones".split()
)


def setup_django(database: Path) -> None:
    os.environ["DATABASE_URL"] = f"sqlite:///{database}"
    os.environ.setdefault("DEBUG", "1")
    os.environ["API_ANON_RATE"] = "100000/minute"
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "directory.settings")
    sys.path.insert(0, str(ROOT))
    import django

    django.setup()
    from django.core.management import call_command

    call_command("migrate", verbosity=0)
    call_command("load_demo", verbosity=0)


def found(client, find: str, query: str) -> list[str]:
    response = client.get(
        ENDPOINTS[find], {"q": query, "page_size": DEPTH, "format": "json"},
        HTTP_HOST="127.0.0.1",
    )  # fmt: skip
    if response.status_code != 200:
        raise SystemExit(f"{find} ?q={query!r}: HTTP {response.status_code}")
    return [row["slug"] for row in response.json()["results"]]


def scores(ranked: list[str], relevant: set[str]) -> dict[str, float]:
    recall = len(relevant & set(ranked[:5])) / len(relevant)
    first = next((i for i, slug in enumerate(ranked, 1) if slug in relevant), None)
    gain = sum(
        1 / math.log2(i + 1) for i, slug in enumerate(ranked[:DEPTH], 1) if slug in relevant
    )  # fmt: skip
    ideal = sum(1 / math.log2(i + 1) for i in range(1, min(len(relevant), DEPTH) + 1))
    return {
        "recall@5": recall,
        "mrr": 1 / first if first else 0.0,
        "ndcg@10": gain / ideal,
    }


def words(text: str) -> set[str]:
    """Lower-case word stems, crudely (a shared stem counts as a shared word)."""
    return {w[:6] for w in re.findall(r"[a-z0-9]+", text.lower()) if w not in STOPWORDS}


def overlaps(judged: list[dict]) -> list[str]:
    """Paraphrases that share a word with a relevant record's search text."""
    from search.registry import searchables

    texts = {}
    for searchable in searchables().values():
        model = searchable.model
        for record in model.objects.all():
            document = searchable.document.objects.filter(pk=record.pk).first()
            if document is not None:
                texts[(model._meta.model_name, record.slug)] = " ".join(
                    [document.heading, document.topics, document.body, document.extra]
                )
    kind = {"people": "person", "publications": "publication"}
    problems = []
    for item in judged:
        if item["kind"] != "paraphrase":
            continue
        for slug in item["relevant"]:
            shared = words(item["q"]) & words(texts.get((kind[item["find"]], slug), ""))
            if shared:
                problems.append(f"{item['id']} shares {sorted(shared)} with {slug}")
    return problems


def main() -> None:
    verbose = "--verbose" in sys.argv
    mode = "hybrid" if os.environ.get("SEMANTIC_SEARCH") == "1" else "keyword"
    judged = yaml.safe_load((HERE / "demo.yaml").read_text())
    with tempfile.TemporaryDirectory() as tmp:
        setup_django(Path(tmp) / "relevance.sqlite3")
        from django.test import Client

        client = Client()
        per_kind: dict[str, list[dict]] = defaultdict(list)
        rows = []
        for item in judged:
            ranked = found(client, item["find"], item["q"])
            result = scores(ranked, set(item["relevant"]))
            per_kind[item["kind"]].append(result)
            rows.append({**item, "ranked": ranked, **result})
            if verbose:
                print(f"{item['id']:28} {result['ndcg@10']:.2f}  {ranked[:5]}")
        problems = overlaps(judged)
    summary = {
        kind: {
            metric: round(sum(r[metric] for r in results) / len(results), 3)
            for metric in ("recall@5", "mrr", "ndcg@10")
        }
        | {"queries": len(results)}
        for kind, results in per_kind.items()
    }
    print(f"mode: {mode}, {len(judged)} queries on the demo lab")
    print(f"{'kind':12} {'n':>3} {'Recall@5':>9} {'MRR':>6} {'nDCG@10':>8}")
    for kind, figures in summary.items():
        print(
            f"{kind:12} {figures['queries']:3} {figures['recall@5']:9.3f} "
            f"{figures['mrr']:6.3f} {figures['ndcg@10']:8.3f}"
        )
    for problem in problems:
        print("paraphrase overlap:", problem)
    RESULTS.mkdir(parents=True, exist_ok=True)
    (RESULTS / f"relevance-{mode}.json").write_text(
        json.dumps({"mode": mode, "summary": summary, "queries": rows}, indent=1) + "\n"
    )


if __name__ == "__main__":
    main()
