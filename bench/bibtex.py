"""BibTeX at scale: parse and import a 10,000-entry file into an empty database.

Run by bench/run.py once per database vendor, with DATABASE_URL pointing at an
empty, migrated database; BIB names the file (exported from the generated lab, or a
real one: bench/real_bibtex.py). Prints one JSON document: parsing rate, first
import, re-import, and the counts after each. With PROFILE set, it imports once
under cProfile instead and writes the top functions to that file.
"""

import cProfile
import io
import json
import os
import pstats
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "directory.settings")

import django  # noqa: E402

django.setup()

from publications.bibtex import parser, tex  # noqa: E402
from publications.bibtex.parser import parse_bibtex  # noqa: E402
from publications.models import Authorship, Publication, Venue  # noqa: E402
from publications.services import (  # noqa: E402
    BibtexImportError,
    publication_import_bibtex,
)


def counts() -> dict[str, int]:
    return {
        "publications": Publication.objects.count(),
        "authorships": Authorship.objects.count(),
        "venues": Venue.objects.count(),
    }


def profile(text: str, target: Path) -> None:
    profiler = cProfile.Profile()
    started = time.perf_counter()
    try:
        profiler.runcall(publication_import_bibtex, text=text, source="bench.bib")
    except BibtexImportError:
        pass  # the profile of an aborted import is still where its time went
    seconds = time.perf_counter() - started
    out = io.StringIO()
    stats = pstats.Stats(profiler, stream=out).strip_dirs()
    for order in ("cumulative", "tottime"):
        stats.sort_stats(order).print_stats(30)
    target.write_text(
        f"# {os.environ['BIB'].rsplit('/', 1)[-1]}: one import under cProfile, "
        f"{seconds:.2f} s (profiling slows it down)\n{out.getvalue()}"
    )
    print(json.dumps({"profile": str(target)}))


def main() -> None:
    text = Path(os.environ["BIB"]).read_text(encoding="utf-8")
    if os.environ.get("PROFILE"):
        profile(text, Path(os.environ["PROFILE"]))
        return
    started = time.perf_counter()
    parsed = parse_bibtex(text)
    parse_seconds = time.perf_counter() - started
    # The first import must decode the file's TeX itself, as an import of a new
    # file does, not find it in the caches that the parse above filled.
    tex.decode_latex.cache_clear()
    parser._name.cache_clear()
    tex._decode_word.cache_clear()
    runs = {}
    for run in ("first import", "re-import"):
        started = time.perf_counter()
        try:
            report = publication_import_bibtex(text=text, source="bench.bib")
        except BibtexImportError as exc:
            runs[run] = {"aborted": str(exc).splitlines()[0], "seconds": None}
            continue
        runs[run] = {
            "seconds": round(time.perf_counter() - started, 2),
            "created": len(report.created),
            "skipped": report.skipped_total,
            "updated": len(report.updated),
            "unchanged": len(report.unchanged),
            "counts": counts(),
        }
    print(
        json.dumps(
            {
                "entries": len(parsed.entries),
                "parse_seconds": round(parse_seconds, 2),
                "entries_per_second": round(len(parsed.entries) / parse_seconds),
                **runs,
            }
        )
    )


if __name__ == "__main__":
    main()
