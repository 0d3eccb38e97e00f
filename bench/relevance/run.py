"""How well search finds what a visitor means: Recall@5, MRR and nDCG@10, and for
people, whether the right member comes first.

Runs judged queries through the API's people and publications lists (the same
filters and ranking as the pages): bench/relevance/demo.yaml against the demo lab
(loaded into a new SQLite database), and with `--lab generated`
bench/relevance/generated.yaml against a generated lab of 1,000 people (kept in
var/relevance/ between runs; its members' vectors are computed once). Prints a
table per kind of query and writes bench/results/relevance-<lab>-<mode>.json; the
mode is "hybrid" when SEMANTIC_SEARCH=1, else "keyword".

Recall@5 is the share of the relevant records in the first five results, out of
at most five (a generated field has hundreds of relevant members). Queries about
nothing in the lab (kind `nothing`) count the results they wrongly get.

People are judged apart, by the member who should be first: top-1 accuracy, MRR
of that member and graded nDCG@10, per kind and per language. The demo lab's
queries are bench/relevance/people.yaml; the generated lab's are built here from
members' own papers' topics (`own_topic_queries`). The queries whose first result
is wrong are printed and kept in the results file.

    .venv/bin/python bench/relevance/run.py [--lab demo|generated] [--verbose]
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


def setup_django(database: Path, lab: str) -> None:
    fresh = not database.exists()
    os.environ["DATABASE_URL"] = f"sqlite:///{database}"
    os.environ.setdefault("DEBUG", "1")
    os.environ["API_ANON_RATE"] = "100000/minute"
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "directory.settings")
    sys.path.insert(0, str(ROOT))
    import django

    django.setup()
    from django.conf import settings
    from django.core.management import call_command

    hybrid = settings.SEMANTIC_SEARCH
    settings.SEMANTIC_SEARCH = False  # vectors are computed below, for what is judged
    call_command("migrate", verbosity=0)
    if lab == "demo":
        call_command("load_demo", verbosity=0)
    elif fresh:
        call_command("generate_lab", "--scale", "small", "--seed", "1", verbosity=0)
    settings.SEMANTIC_SEARCH = hybrid
    if hybrid:
        from search.indexing import index
        from search.registry import searchables

        for kind in searchables():
            model = searchables()[kind].model
            index(kind, list(model.objects.values_list("pk", flat=True)))


def relevant_members(field: str) -> set[str]:
    from core.models import Topic
    from people.models import Person

    subtree = Topic.objects.subtree_ids([field])
    return set(Person.objects.filter(topics__in=subtree).values_list("slug", flat=True))


def found(client, find: str, query: str) -> list[str]:
    response = client.get(
        ENDPOINTS[find],
        {"q": query, "page_size": DEPTH, "format": "json"},
        HTTP_HOST="127.0.0.1",
    )
    if response.status_code != 200:
        raise SystemExit(f"{find} ?q={query!r}: HTTP {response.status_code}")
    return [row["slug"] for row in response.json()["results"]]


def scores(ranked: list[str], relevant: set[str]) -> dict[str, float]:
    if not relevant:
        # A query about nothing here: every result is a wrong one.
        return {"results": len(ranked), "any": float(bool(ranked))}
    recall = len(relevant & set(ranked[:5])) / min(5, len(relevant))
    first = next((i for i, slug in enumerate(ranked, 1) if slug in relevant), None)
    gain = sum(
        1 / math.log2(i + 1)
        for i, slug in enumerate(ranked[:DEPTH], 1)
        if slug in relevant
    )
    ideal = sum(1 / math.log2(i + 1) for i in range(1, min(len(relevant), DEPTH) + 1))
    return {
        "recall@5": recall,
        "mrr": 1 / first if first else 0.0,
        "ndcg@10": gain / ideal,
    }


def first_scores(ranked: list[str], first: str, graded: dict[str, int]) -> dict:
    """Top-1, reciprocal rank of `first` and nDCG@10 with `first` at grade 2."""
    grades = {**graded, first: 2}
    rank = ranked.index(first) + 1 if first in ranked else None
    gain = sum(
        (2 ** grades.get(slug, 0) - 1) / math.log2(i + 1)
        for i, slug in enumerate(ranked[:DEPTH], 1)
    )
    best = sorted(grades.values(), reverse=True)[:DEPTH]
    ideal = sum((2**g - 1) / math.log2(i + 1) for i, g in enumerate(best, 1))
    return {
        "top-1": float(rank == 1),
        "mrr": 1 / rank if rank else 0.0,
        "ndcg@10": gain / ideal,
    }


def own_topic_queries(count: int = 40) -> list[dict]:
    """For members spread evenly over those with two papers or more: the fewest of
    their papers' three commonest topics that the fewest other members' papers
    also cover, as a query; that member first, those others graded 1."""
    from itertools import combinations

    from core.models import Topic
    from people.models import Person
    from publications.models import Authorship, Publication

    papers: dict[int, list[int]] = defaultdict(list)
    for person, paper in Authorship.objects.filter(person__isnull=False).values_list(
        "person_id", "publication_id"
    ):
        papers[person].append(paper)
    paper_topics: dict[int, list[int]] = defaultdict(list)
    for paper, topic in Publication.topics.through.objects.values_list(
        "publication_id", "topic_id"
    ):
        paper_topics[paper].append(topic)
    covered = {
        person: {t for paper in ids for t in paper_topics[paper]}
        for person, ids in papers.items()
    }
    aliases = dict(Topic.objects.values_list("pk", "aliases"))
    names = dict(Topic.objects.values_list("pk", "name"))
    slugs = dict(Person.objects.values_list("pk", "slug"))
    authors = sorted(person for person, ids in papers.items() if len(ids) >= 2)
    step = max(1, len(authors) // count)
    queries = []
    for person in authors[::step][:count]:
        tally = defaultdict(int)
        for paper in papers[person]:
            for topic in paper_topics[paper]:
                tally[topic] += 1
        common = sorted(tally, key=lambda t: (-tally[t], names[t]))[:3]

        def sharing(topics: tuple[int, ...], person: int = person) -> list[int]:
            return sorted(
                other
                for other, have in covered.items()
                if other != person and have.issuperset(topics)
            )

        choices = [c for n in (1, 2, 3) for c in combinations(common, n)]
        topics = min(choices, key=lambda c: (len(sharing(c)), len(c)))
        queries.append(
            {
                "id": f"own-{slugs[person]}",
                "kind": "own-topics",
                "lang": "en",
                # A leaf's alias is its name without the field in brackets.
                "q": ", ".join(aliases[t] or names[t] for t in topics),
                "first": slugs[person],
                "graded": {slugs[o]: 1 for o in sharing(topics)},
            }
        )
    return queries


def judge_people(client, judged: list[dict], verbose: bool) -> dict:
    """Each query's ranking and figures, and their averages per kind, language and
    over all."""
    rows = []
    for item in judged:
        ranked = found(client, "people", item["q"])
        result = first_scores(ranked, item["first"], item.get("graded", {}))
        rows.append({**item, "ranked": ranked, **result})
        if verbose:
            print(f"{item['id']:28} {result['mrr']:.2f}  {ranked[:4]}")
    groups: dict[str, dict[str, list[dict]]] = {
        "all": {"all": rows},
        "kinds": defaultdict(list),
        "languages": defaultdict(list),
    }
    for row in rows:
        groups["kinds"][row["kind"]].append(row)
        groups["languages"][row["lang"]].append(row)
    metrics = ("top-1", "mrr", "ndcg@10")
    summary = {
        name: {
            key: {m: round(sum(r[m] for r in group) / len(group), 3) for m in metrics}
            | {"queries": len(group)}
            for key, group in by.items()
        }
        for name, by in groups.items()
    }
    summary["all"] = summary["all"]["all"]
    summary["wrong first"] = [row["id"] for row in rows if not row["top-1"]]
    return {"summary": summary, "queries": rows}


def report_people(people: dict, *, mode: str, lab: str) -> None:
    """Print the people figures, then each query whose first result is wrong."""
    summary = people["summary"]
    print(
        f"\npeople, mode: {mode}, {summary['all']['queries']} queries on the {lab} lab"
    )
    print(f"{'':16} {'n':>3} {'top-1':>6} {'MRR':>6} {'nDCG@10':>8}")
    lines = [("all", summary["all"])]
    lines += [(f"kind {k}", v) for k, v in summary["kinds"].items()]
    lines += [(f"lang {k}", v) for k, v in summary["languages"].items()]
    for label, f in lines:
        print(
            f"{label:16} {f['queries']:3} {f['top-1']:6.3f} {f['mrr']:6.3f} "
            f"{f['ndcg@10']:8.3f}"
        )
    for row in people["queries"]:
        if not row["top-1"]:
            at = row["ranked"].index(row["first"]) + 1 if row["mrr"] else "-"
            print(
                f"wrong first: {row['id']} {row['q']!r}: {row['first']} at {at}, "
                f"got {row['ranked'][:3]}"
            )


def words(text: str) -> set[str]:
    """Lower-case word stems, crudely (a shared stem counts as a shared word)."""
    return {
        w[:6] for w in re.findall(r"[a-z0-9]{2,}", text.lower()) if w not in STOPWORDS
    }


def overlaps(judged: list[dict], relevant: dict[str, set[str]]) -> list[str]:
    """Paraphrases that share a word with a relevant record's search text."""
    from search.registry import searchables

    texts = {}
    for searchable in searchables().values():
        model = searchable.model
        for record in model.objects.all().iterator():
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
        for slug in relevant[item["id"]]:
            shared = words(item["q"]) & words(texts.get((kind[item["find"]], slug), ""))
            if shared:
                problems.append(f"{item['id']} shares {sorted(shared)} with {slug}")
    return problems


def averages(per_kind: dict[str, list[dict]]) -> dict[str, dict]:
    """Each kind's metrics averaged over its queries, with how many there were."""
    return {
        kind: {
            metric: round(sum(r[metric] for r in results) / len(results), 3)
            for metric in results[0]
        }
        | {"queries": len(results)}
        for kind, results in per_kind.items()
    }


def report(
    summary: dict[str, dict], *, mode: str, lab: str, queries: int, problems: list[str]
) -> None:
    """Print each kind's figures, then the paraphrases that share words with an
    answer."""
    print(f"mode: {mode}, {queries} queries on the {lab} lab")
    print(f"{'kind':12} {'n':>3} {'Recall@5':>9} {'MRR':>6} {'nDCG@10':>8}")
    for kind, figures in summary.items():
        if "results" in figures:
            print(
                f"{kind:12} {figures['queries']:3} results per query "
                f"{figures['results']:.2f}, queries with any {figures['any']:.0%}"
            )
            continue
        print(
            f"{kind:12} {figures['queries']:3} {figures['recall@5']:9.3f} "
            f"{figures['mrr']:6.3f} {figures['ndcg@10']:8.3f}"
        )
    for problem in problems:
        print("paraphrase overlap:", problem)


def judge_records(
    client, judged: list[dict], relevant: dict[str, set[str]], verbose: bool
) -> tuple[dict[str, list[dict]], list[dict]]:
    """Each judged query's ranking and scores, grouped by kind, and its row."""
    per_kind: dict[str, list[dict]] = defaultdict(list)
    rows = []
    for item in judged:
        ranked = found(client, item["find"], item["q"])
        result = scores(ranked, relevant[item["id"]])
        per_kind[item["kind"]].append(result)
        rows.append(
            {**item, "relevant": len(relevant[item["id"]]), "ranked": ranked, **result}
        )
        if verbose:
            print(f"{item['id']:28} {result['ndcg@10']:.2f}  {ranked[:5]}")
    return per_kind, rows


def main() -> None:
    verbose = "--verbose" in sys.argv
    lab = sys.argv[sys.argv.index("--lab") + 1] if "--lab" in sys.argv else "demo"
    mode = "hybrid" if os.environ.get("SEMANTIC_SEARCH") == "1" else "keyword"
    judged = yaml.safe_load((HERE / f"{lab}.yaml").read_text())
    with tempfile.TemporaryDirectory() as tmp:
        kept = ROOT / "var" / "relevance"
        kept.mkdir(parents=True, exist_ok=True)
        folder = Path(tmp) if lab == "demo" else kept
        setup_django(folder / f"{lab}.sqlite3", lab)
        from django.test import Client

        client = Client()
        relevant = {
            item["id"]: set(item["relevant"])
            if "relevant" in item
            else relevant_members(item["field"])
            for item in judged
        }
        per_kind, rows = judge_records(client, judged, relevant, verbose)
        if lab == "demo":
            judged_people = yaml.safe_load((HERE / "people.yaml").read_text())
        else:
            judged_people = own_topic_queries()
        people = judge_people(client, judged_people, verbose)
        problems = overlaps(judged, relevant)
        # A people query's paraphrase must avoid only its first member's words.
        problems += overlaps(
            [{**item, "find": "people"} for item in judged_people],
            {item["id"]: {item["first"]} for item in judged_people},
        )
    summary = averages(per_kind)
    report(summary, mode=mode, lab=lab, queries=len(judged), problems=problems)
    report_people(people, mode=mode, lab=lab)
    RESULTS.mkdir(parents=True, exist_ok=True)
    (RESULTS / f"relevance-{lab}-{mode}.json").write_text(
        json.dumps(
            {
                "lab": lab,
                "mode": mode,
                "summary": summary,
                "queries": rows,
                "people": people["summary"],
                "people queries": people["queries"],
            },
            indent=1,
            ensure_ascii=False,
        )
        + "\n"
    )


if __name__ == "__main__":
    main()
