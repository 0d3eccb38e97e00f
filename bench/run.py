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
        [PYTHON, "manage.py", *args], cwd=ROOT, env=env, check=True, capture_output=True,
        text=True,
    )  # fmt: skip
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
        manage(url, "shell", "-c", "from people.models import Person; print(Person.objects.count())")
        .strip().splitlines()[-1] or "0"
    )  # fmt: skip
    if counts:
        return {"generated": False}
    started = time.perf_counter()
    output = manage(url, "generate_lab", "--scale", SIZES[size], "--seed", "1")
    return {"generated": True, "seconds": round(time.perf_counter() - started, 1),
            "output": output.strip()}  # fmt: skip


def measure(url: str) -> dict:
    env = {**ENV, "DATABASE_URL": url}
    done = subprocess.run(
        [PYTHON, "bench/measure.py"], cwd=ROOT, env=env, check=True, capture_output=True,
        text=True,
    )  # fmt: skip
    return json.loads(done.stdout)


def markdown(report: dict) -> str:
    lines = [
        f"# Benchmark {report['date']}",
        "",
        f"Machine: {report['machine']}. Each figure over {report['runs']} requests after "
        "warm-up, through the whole Django stack (test client, production settings). "
        "Floor: the same SQL replayed through the bare driver (+ `json.dumps` for API "
        "pages).",
        "",
    ]
    for vendor, sizes in report["databases"].items():
        lines += [f"## {vendor}", ""]
        lines.append(
            "| endpoint | p50 ms | p95 ms | queries | SQL ms | stack/floor | p95 full/tenth |"
        )
        lines.append("|---|---:|---:|---:|---:|---:|---:|")
        tenth = {
            r["url"].split("?")[0] + r["name"][:12]: r
            for r in sizes["tenth"]["results"]
        }
        for row in sizes["full"]["results"]:
            small = tenth.get(row["url"].split("?")[0] + row["name"][:12])
            ratio = f"{row['p95_ms'] / small['p95_ms']:.2f}" if small else "—"
            lines.append(
                f"| {row['name']} | {row['p50_ms']} | {row['p95_ms']} | {row['queries']} | "
                f"{row['sql_ms']} | {row['stack_over_floor']} | {ratio} |"
            )
        for size in ("tenth", "full"):
            gen = sizes[size]["setup"]
            if gen.get("generated"):
                lines.append(
                    f"\n{size}: generated in {gen['seconds']} s ({gen['output']})"
                )
        lines.append("")
    return "\n".join(lines)


def main() -> None:
    RESULTS.mkdir(parents=True, exist_ok=True)
    report = {
        "date": time.strftime("%Y-%m-%d %H:%M"),
        "machine": f"{platform.machine()}, {os.cpu_count()} cores, Python "
        f"{platform.python_version()}",
        "runs": int(os.environ.get("BENCH_RUNS", "30")),
        "databases": {},
    }
    for vendor, urls in database_urls().items():
        report["databases"][vendor] = {}
        for size, url in urls.items():
            print(f"{vendor} {size}: preparing…", flush=True)
            setup = ensure(vendor, size, url)
            print(f"{vendor} {size}: measuring…", flush=True)
            report["databases"][vendor][size] = {"setup": setup, **measure(url)}
    (RESULTS / "latest.json").write_text(json.dumps(report, indent=2))
    (RESULTS / "latest.md").write_text(markdown(report))
    print(markdown(report))


if __name__ == "__main__":
    main()
