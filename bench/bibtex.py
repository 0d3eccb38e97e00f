"""BibTeX at scale: parse and import a 10,000-entry file into an empty database.

Run by bench/run.py once per database vendor, with DATABASE_URL pointing at an
empty, migrated database; BIB names the file (exported from the generated lab, so
the entries have the generator's authors, venues and years). Prints one JSON
document: parsing rate, first import, re-import, and the counts after each.
"""

import json
import os
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "directory.settings")

import django  # noqa: E402

django.setup()

from publications.bibtex import parse_bibtex  # noqa: E402
from publications.models import Authorship, Publication, Venue  # noqa: E402
from publications.services import publication_import_bibtex  # noqa: E402


def counts() -> dict[str, int]:
    return {
        "publications": Publication.objects.count(),
        "authorships": Authorship.objects.count(),
        "venues": Venue.objects.count(),
    }


def main() -> None:
    text = Path(os.environ["BIB"]).read_text(encoding="utf-8")
    started = time.perf_counter()
    parsed = parse_bibtex(text)
    parse_seconds = time.perf_counter() - started
    runs = {}
    for run in ("first import", "re-import"):
        started = time.perf_counter()
        report = publication_import_bibtex(text=text, source="bench.bib")
        runs[run] = {
            "seconds": round(time.perf_counter() - started, 2),
            "created": len(report.created),
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
