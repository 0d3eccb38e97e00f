"""pylatexenc loads only in a process that reads BibTeX: not at start, not to write.

The site's pages write entries (every list of papers has one per paper) and read
none; a child process shows what starting the site and writing an entry import.
"""

import json
import os
import subprocess
import sys

from django.conf import settings

CHILD = """
import json
import sys

import django

django.setup()
import directory.urls  # noqa: F401

at_start = "pylatexenc" in sys.modules
from publications.bibtex.writer import to_bibtex
from publications.models import Authorship, Publication

publication = Publication(
    pk=1, title="Notes on Engines", year=1843, month=7, kind="journal_article"
)
# The rows a list page prefetches, so that no database is needed.
publication._prefetched_objects_cache = {
    "authorships": [Authorship(name="Ada Lovelace", position=1)],
    "links": [],
}
entry = to_bibtex(publication)
print(json.dumps({
    "at_start": at_start,
    "after_writing": "pylatexenc" in sys.modules,
    "entry": entry,
}))
"""


def test_it_starts_and_writes_an_entry_without_pylatexenc():
    env = {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "directory.settings",
        "SECRET_KEY": "tests-only-secret-key-0123456789abcdefghijklmnopqrstuvwxyz",
        "DEBUG": "0",
    }
    child = subprocess.run(
        [sys.executable, "-c", CHILD],
        cwd=settings.BASE_DIR,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert child.returncode == 0, child.stderr
    result = json.loads(child.stdout.splitlines()[-1])
    assert result["entry"] == (
        "@article{lovelace1843notes,\n\ttitle = {{Notes on Engines}},\n"
        "\tauthor = {Lovelace, Ada},\n\tyear = {1843},\n\tmonth = jul\n}\n"
    )
    assert not result["at_start"]
    assert not result["after_writing"]
