"""Time `generate_lab` at the sizes `make bench` uses, into fresh databases.

SQLite always; PostgreSQL too when DATABASE_URL points at one (databases
bench_generate_*, dropped again). Each size is generated RUNS times into a new,
migrated database; every run's seconds are printed as one JSON document: the whole
command, and the write, index and similarity phases it reports.
"""

import json
import os
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SIZES = {"tenth": "small", "full": "large"}
RUNS = int(os.environ.get("RUNS", "2"))
PHASES = {
    "write": r"events in ([\d.]+) s",
    "index": r"documents in ([\d.]+) s",
    "similar": r"similar members in ([\d.]+) s",
    "vacuum": r"analysed in ([\d.]+) s",
}


def manage(url: str, *args: str) -> str:
    env = {
        **os.environ,
        "DEBUG": "0",
        "DATABASE_URL": url,
        "SECRET_KEY": "bench-only-0123456789abcdefghijklmnopqrstuvwxyz",
    }
    done = subprocess.run(
        [sys.executable, "manage.py", *args],
        cwd=ROOT,
        env=env,
        check=True,
        capture_output=True,
        text=True,
    )
    return done.stdout


def fresh_sqlite() -> list[str]:
    folder = ROOT / "var" / "bench"
    folder.mkdir(parents=True, exist_ok=True)
    template = folder / "generate-template.sqlite3"
    if not template.exists():
        manage(f"sqlite:///{template}", "migrate", "--noinput", "-v0")
    target = folder / "generate.sqlite3"
    for suffix in ("-wal", "-shm"):
        Path(f"{target}{suffix}").unlink(missing_ok=True)
    shutil.copyfile(template, target)
    return [f"sqlite:///{target}"]


def fresh_postgres(base: str) -> list[str]:
    import psycopg

    prefix = base.rsplit("/", 1)[0]
    with psycopg.connect(f"{prefix}/postgres", autocommit=True) as conn:
        conn.execute('DROP DATABASE IF EXISTS "bench_generate"')
        exists = conn.execute(
            "SELECT 1 FROM pg_database WHERE datname = 'bench_generate_template'"
        ).fetchone()
        if not exists:
            conn.execute('CREATE DATABASE "bench_generate_template"')
            manage(f"{prefix}/bench_generate_template", "migrate", "--noinput", "-v0")
        conn.execute(
            'CREATE DATABASE "bench_generate" TEMPLATE "bench_generate_template"'
        )
    return [f"{prefix}/bench_generate"]


def drop_postgres(base: str) -> None:
    import psycopg

    prefix = base.rsplit("/", 1)[0]
    with psycopg.connect(f"{prefix}/postgres", autocommit=True) as conn:
        for name in ("bench_generate", "bench_generate_template"):
            conn.execute(f'DROP DATABASE IF EXISTS "{name}"')


def run(url: str, scale: str) -> dict:
    started = time.perf_counter()
    output = manage(url, "generate_lab", "--scale", scale, "--seed", "1")
    result = {"seconds": round(time.perf_counter() - started, 1)}
    for phase, pattern in PHASES.items():
        if found := re.search(pattern, output):
            result[phase] = float(found.group(1))
    return result


def main() -> None:
    base = os.environ.get("DATABASE_URL", "")
    vendors = {"sqlite": fresh_sqlite}
    if base.startswith("postgres"):
        vendors["postgresql"] = lambda: fresh_postgres(base)
    results = {}
    for vendor, fresh in vendors.items():
        for size, scale in SIZES.items():
            results[f"{vendor} {size}"] = [run(fresh()[0], scale) for _ in range(RUNS)]
    if base.startswith("postgres"):
        drop_postgres(base)
    print(json.dumps(results))


if __name__ == "__main__":
    main()
