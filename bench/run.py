"""`make bench`: generate the directory at a tenth and at full size, measure, report.

On SQLite always; on PostgreSQL too when DATABASE_URL points at one. Databases are
kept under var/bench/ (SQLite) or as bench_small/bench_large (PostgreSQL) and reused.
"""

import json
import os
import platform
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PYTHON = sys.executable
RESULTS = ROOT / "bench" / "results"
SIZES = {"tenth": "small", "full": "large"}
IMPORT_RUNS = 3
ENV = {
    **os.environ,
    "DEBUG": "0",
    "SECRET_KEY": os.environ.get(
        "SECRET_KEY", "bench-only-0123456789abcdefghijklmnopqrstuvwxyz"
    ),
    "SECURE_SSL_REDIRECT": "0",
}


def manage(url: str, *args: str) -> str:
    env = {**ENV, "DATABASE_URL": url}
    done = subprocess.run(
        [PYTHON, "manage.py", *args],
        cwd=ROOT,
        env=env,
        check=True,
        capture_output=True,
        text=True,
    )
    return done.stdout


def database_urls() -> dict[str, dict[str, str]]:
    (ROOT / "var" / "bench").mkdir(parents=True, exist_ok=True)
    urls = {
        "sqlite": {
            s: f"sqlite:///{ROOT / 'var' / 'bench' / f'{s}.sqlite3'}" for s in SIZES
        }
    }
    base = os.environ.get("DATABASE_URL", "")
    if base.startswith("postgres"):
        prefix = base.rsplit("/", 1)[0]
        urls["postgresql"] = {s: f"{prefix}/bench_{s}" for s in SIZES}
    return urls


def ensure(vendor: str, size: str, url: str) -> dict:
    """Create and fill the database once; report how long generation took."""
    if vendor == "postgresql":
        import psycopg

        admin_url = url.rsplit("/", 1)[0] + "/postgres"
        with psycopg.connect(admin_url, autocommit=True) as conn:
            exists = conn.execute(
                "SELECT 1 FROM pg_database WHERE datname = %s", [url.rsplit("/", 1)[1]]
            ).fetchone()
            if not exists:
                conn.execute(f'CREATE DATABASE "{url.rsplit("/", 1)[1]}"')
    manage(url, "migrate", "--noinput", "-v0")
    counts = json.loads(
        manage(
            url,
            "shell",
            "-c",
            "from people.models import Person; print(Person.objects.count())",
        )
        .strip()
        .splitlines()[-1]
        or "0"
    )
    if counts:
        return {"generated": False}
    started = time.perf_counter()
    output = manage(url, "generate_lab", "--scale", SIZES[size], "--seed", "1")
    return {
        "generated": True,
        "seconds": round(time.perf_counter() - started, 1),
        "output": output.strip(),
    }


def measure(url: str) -> dict:
    env = {**ENV, "DATABASE_URL": url}
    done = subprocess.run(
        [PYTHON, "bench/measure.py"],
        cwd=ROOT,
        env=env,
        check=True,
        capture_output=True,
        text=True,
    )
    return json.loads(done.stdout)


def run_script(script: str, url: str, **extra: str) -> dict:
    env = {**ENV, "DATABASE_URL": url, **extra}
    done = subprocess.run(
        [PYTHON, f"bench/{script}"],
        cwd=ROOT,
        env=env,
        check=True,
        capture_output=True,
        text=True,
    )
    return json.loads(done.stdout.strip().splitlines()[-1])


def bibtex(vendor: str, urls: dict[str, str]) -> dict:
    """Import a 10,000-entry file (the tenth-size lab, exported) into an empty
    database, twice."""
    bib = ROOT / "var" / "bench" / "10k.bib"
    if not bib.exists():
        manage(
            urls["tenth"],
            "shell",
            "-c",
            "from publications.export import to_bibtex_list; "
            "from publications.models import Publication; "
            f"open({str(bib)!r}, 'w').write(to_bibtex_list("
            "Publication.objects.with_authors().order_by('pk')))",
        )
    # Three runs, each into a new empty database; the median run is reported (this
    # shared machine's speed varies from minute to minute) and all three are shown.
    runs = [
        run_script("bibtex.py", empty_database(vendor, urls), BIB=str(bib))
        for _ in range(IMPORT_RUNS)
    ]
    runs.sort(key=lambda run: run["first import"]["seconds"])
    result = runs[len(runs) // 2]
    result["first_import_runs"] = [run["first import"]["seconds"] for run in runs]
    result["parse_runs"] = sorted(run["parse_seconds"] for run in runs)
    result["parse_seconds"] = result["parse_runs"][len(runs) // 2]
    result["entries_per_second"] = round(result["entries"] / result["parse_seconds"])
    return result


def empty_database(vendor: str, urls: dict[str, str]) -> str:
    """A new, migrated database to import into."""
    if vendor == "sqlite":
        target = ROOT / "var" / "bench" / "import.sqlite3"
        for suffix in ("", "-wal", "-shm"):
            Path(f"{target}{suffix}").unlink(missing_ok=True)
        url = f"sqlite:///{target}"
    else:
        import psycopg

        url = urls["tenth"].rsplit("/", 1)[0] + "/bench_import"
        with psycopg.connect(url.rsplit("/", 1)[0] + "/postgres", autocommit=True) as c:
            c.execute('DROP DATABASE IF EXISTS "bench_import"')
            c.execute('CREATE DATABASE "bench_import"')
    manage(url, "migrate", "--noinput", "-v0")
    return url


def bibtex_lines(result: dict | None) -> list[str]:
    if not result:
        return []
    first, again = result["first import"], result["re-import"]
    return [
        "",
        f"BibTeX, {result['entries']:,} entries: parsed in {result['parse_seconds']} s "
        f"({result['entries_per_second']:,} entries/s); imported into an empty "
        f"database in {first['seconds']} s ({first['created']:,} created; median of "
        f"{len(result['first_import_runs'])} runs: {result['first_import_runs']} s, "
        f"parsing {result['parse_runs']} s); "
        f"re-imported in {again['seconds']} s ({again['unchanged']:,} unchanged, "
        f"{again['created']} created; counts {'unchanged' if again['counts'] == first['counts'] else 'CHANGED'}).",
    ]


def similar_lines(result: dict | None) -> list[str]:
    if not result:
        return []
    return [
        "",
        f"Similar researchers, {result['people']:,} people: computed in bulk in "
        f"{result['bulk_seconds']} s (median of {len(result['bulk_runs'])}: "
        f"{result['bulk_runs']} s; {result['rows']:,} rows), of which reading what "
        f"describes every member {result['loading_seconds']} s; the first read of a "
        f"stale member's list (the most prolific member) "
        f"{result['stale_read_seconds']} s (runs: {result['stale_read_runs']} s).",
    ]


def http_lines(result: dict | None) -> list[str]:
    if not result:
        return []
    lines = ["", "gunicorn on loopback, driven by wrk:", ""]
    lines.append("| run | requests/s | p50 ms | p90 ms | p99 ms | errors |")
    lines.append("|---|---:|---:|---:|---:|---:|")
    runs = [
        (
            f"2 workers, 4 connections: API list `{result['throughput']['paths']['api_list']}`",
            result["throughput"]["api_list"],
        ),
        (
            f"2 workers, 4 connections: faceted page `{result['throughput']['paths']['faceted']}`",
            result["throughput"]["faceted"],
        ),
        (
            f"{result['load']['workers']} workers, {result['load']['users']} users pausing "
            f"{result['load']['think_ms']} ms, {len(result['load']['paths'])} mixed pages, "
            f"{result['load']['seconds']:.0f} s",
            result["load"],
        ),
    ]
    for name, r in runs:
        errors = sum(r[k] for k in r if k.endswith("errors") or k == "timeouts")
        # Throughput is the median of three runs; all three are shown.
        rate = f"{r['rps']:.1f}" + (
            f" ({' / '.join(f'{x:.0f}' for x in r['all_rps'])})"
            if "all_rps" in r
            else ""
        )
        lines.append(
            f"| {name} | {rate} | {r['p50_ms']:.1f} | {r['p90_ms']:.1f} | "
            f"{r['p99_ms']:.1f} | {errors} |"
        )
    if "load_cache_cut" in result:
        cut = result["load_cache_cut"]
        phases = "; ".join(
            f"{name}: {p['requests']} requests, p50 {p['p50_ms']} ms, p99 {p['p99_ms']} ms"
            for name, p in cut["phases"].items()
        )
        lines.append(
            f"\nThe same load with Redis as the cache, cut (refused) from "
            f"{cut['outage_s'][0]} to {cut['outage_s'][1]} s: {cut['rps']:.1f} requests/s, "
            f"{cut['status_5xx']} answers 5xx, {cut['status_errors']} 4xx/5xx, "
            f"{cut['connect_errors'] + cut['read_errors'] + cut['timeouts']} socket errors, "
            f"{cut['cache_warnings']} cache warnings logged. From the request log: {phases}."
        )
    rss = ", ".join(f"{m} MB" for m in result["worker_rss_mb"])
    lines.append(f"\nResident memory per worker after the throughput runs: {rss}.")
    return lines


REFERENCE = """
import json, time
started = time.perf_counter()
total = 0
for i in range(5_000_000):
    total += i
json.dumps([{"id": i, "name": str(i)} for i in range(200_000)])
print(time.perf_counter() - started)
"""


def reference_seconds() -> float:
    """How fast the machine is just now: a fixed pure-Python workload, best of 3."""
    runs = [
        float(
            subprocess.run(
                [PYTHON, "-c", REFERENCE], capture_output=True, text=True, check=True
            ).stdout
        )
        for _ in range(3)
    ]
    return round(min(runs), 2)


def markdown(report: dict) -> str:
    speed = report["reference_seconds"]
    lines = [
        f"# Benchmark {report['date']}",
        "",
        f"Machine: {report['machine']}. Each figure over {report['runs']} requests after "
        "warm-up, through the whole Django stack (test client, production settings). "
        "Floor: the same SQL replayed through the bare driver (+ `json.dumps` for API "
        "pages). Uncached: the first request after any write to the directory (every "
        "cached result is of an older data version, the background recount of the "
        "unfiltered lists' facets not waited for; p50 and p95 of 20), and its growth "
        "from the tenth to the full size.",
        "",
        f"Reference workload (a fixed pure-Python loop, best of 3): {speed['start']} s "
        f"before the run, {speed['end']} s after it. The machines are shared and their "
        "speed varies from day to day; compare runs against this figure.",
        "",
    ]
    for vendor, sizes in report["databases"].items():
        lines += [f"## {vendor}", ""]
        lines.append(
            "| endpoint | p50 ms | p95 ms | queries | SQL ms | stack/floor "
            "| p95 full/tenth | uncached p50 ms | uncached p95 ms | uncached full/tenth |"
        )
        lines.append("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
        # Both sizes measure the same endpoints in the same order.
        for row, small in zip(
            sizes["full"]["results"], sizes["tenth"]["results"], strict=True
        ):
            ratio = f"{row['p95_ms'] / small['p95_ms']:.2f}" if small else "—"
            cold = row.get("after_write_p95_ms")
            growth = f"{cold / small['after_write_p95_ms']:.2f}" if cold else "—"
            lines.append(
                f"| {row['name']} | {row['p50_ms']} | {row['p95_ms']} | {row['queries']} | "
                f"{row['sql_ms']} | {row['stack_over_floor']} | {ratio} | "
                f"{row['after_write_p50_ms']} | {cold or '—'} | {growth} |"
            )
        lines += bibtex_lines(sizes.get("bibtex")) + similar_lines(sizes.get("similar"))
        lines += http_lines(sizes.get("http"))
        for size in ("tenth", "full"):
            gen = sizes[size]["setup"]
            if gen.get("generated"):
                lines.append(
                    f"\n{size}: generated in {gen['seconds']} s ({gen['output']})"
                )
        lines.append("")
    if report.get("bibtex_real"):
        lines.append("BibTeX import on real files: bench/results/bibtex-real.md.\n")
    return "\n".join(lines)


def main() -> None:
    RESULTS.mkdir(parents=True, exist_ok=True)
    report = {
        "date": time.strftime("%Y-%m-%d %H:%M"),
        "machine": f"{platform.machine()}, {os.cpu_count()} cores, Python "
        f"{platform.python_version()}",
        "runs": int(os.environ.get("BENCH_RUNS", "60")),
        "reference_seconds": {"start": reference_seconds()},
        "databases": {},
    }
    for vendor, urls in database_urls().items():
        report["databases"][vendor] = {}
        for size, url in urls.items():
            print(f"{vendor} {size}: preparing…", flush=True)
            setup = ensure(vendor, size, url)
            print(f"{vendor} {size}: measuring…", flush=True)
            report["databases"][vendor][size] = {"setup": setup, **measure(url)}
        print(f"{vendor}: BibTeX import…", flush=True)
        report["databases"][vendor]["bibtex"] = bibtex(vendor, urls)
        print(f"{vendor}: similar researchers…", flush=True)
        report["databases"][vendor]["similar"] = run_script("similar.py", urls["full"])
        print(f"{vendor}: gunicorn throughput and load…", flush=True)
        paths = report["databases"][vendor]["full"]["http_paths"]
        report["databases"][vendor]["http"] = run_script(
            "serve.py", urls["full"], BENCH_PATHS=json.dumps(paths)
        )
    print("BibTeX import on real files…", flush=True)
    import real_bibtex  # it imports this module: loaded once this one is

    report["bibtex_real"] = real_bibtex.main()
    report["reference_seconds"]["end"] = reference_seconds()
    (RESULTS / "latest.json").write_text(json.dumps(report, indent=2))
    (RESULTS / "latest.md").write_text(markdown(report))
    print(markdown(report))


if __name__ == "__main__":
    main()
