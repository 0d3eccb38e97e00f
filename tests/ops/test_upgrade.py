"""A database made by the release before the restructure migrates forward with every
row kept: the old code builds it, the current code migrates it and reads it."""

import json
import shutil
import subprocess
import sys
import tarfile
from io import BytesIO
from pathlib import Path

import pytest

from tests.ops.test_backup import SEARCH, _env

BASE_DIR = Path(__file__).resolve().parents[2]
# The last commit of main before the project package was split into apps.
PREVIOUS_HEAD = "5e01d30"

# Every table's columns and rows, read with plain SQL so that either version of the
# code reads them alike. Columns the newer code may add are left out by `columns`.
ROWS = """
import json
from django.db import connection

wanted = WANTED
out = {}
with connection.cursor() as cursor:
    for table in sorted(connection.introspection.table_names()):
        # SQLite's full-text shadow tables are rebuilt from the documents.
        if "_fts" in table or table == "django_migrations":
            continue
        columns = [c.name for c in connection.introspection.get_table_description(
            cursor, table)]
        if wanted is not None:
            if table not in wanted:
                continue
            columns = [c for c in wanted[table] if c in columns]
        names = ", ".join(connection.ops.quote_name(c) for c in columns)
        cursor.execute(f"SELECT {names} FROM {connection.ops.quote_name(table)}")
        rows = sorted(json.dumps([str(v) for v in row]) for row in cursor.fetchall())
        out[table] = {"columns": columns, "rows": rows}
print(json.dumps(out))
"""

# Columns renamed since that release: their rows are compared under the new name.
RENAMED = {("publications_publication", "source"): "source_file"}


@pytest.fixture
def previous_release(tmp_path) -> Path:
    if shutil.which("git") is None:
        pytest.skip("needs git")
    archive = subprocess.run(
        ["git", "-C", str(BASE_DIR), "archive", "--format=tar", PREVIOUS_HEAD],
        capture_output=True,
    )
    if archive.returncode != 0:
        pytest.skip(f"{PREVIOUS_HEAD} is not in this clone's history")
    target = tmp_path / "previous"
    with tarfile.open(fileobj=BytesIO(archive.stdout)) as tar:
        tar.extractall(target, filter="data")
    return target


@pytest.mark.slow
def test_a_database_of_the_previous_release_migrates_with_every_row(
    scratch_database, tmp_path, previous_release
):
    """Slow: the previous release's code migrates and loads a database, the current
    code migrates it again, each in processes of their own."""
    env = _env(scratch_database("upgrade"), tmp_path)
    _manage(previous_release, env, "migrate", "--noinput", "-v0")
    _manage(previous_release, env, "load_demo", "-v0")
    before = _rows(previous_release, env, None)
    assert before["people_person"]["rows"] and before["directory_topic"]["rows"]
    event_links = _pop_column(before["events_event"], "publication_id")
    assert event_links

    _manage(BASE_DIR, env, "migrate", "--noinput", "-v0")

    wanted = {
        table: [RENAMED.get((table, column), column) for column in data["columns"]]
        for table, data in before.items()
    }
    wanted["events_event_publications"] = ["event_id", "publication_id"]
    after = _rows(BASE_DIR, env, wanted)
    # An event's one publication became the first of its many.
    moved = {
        tuple(json.loads(row)) for row in after["events_event_publications"]["rows"]
    }
    assert moved == event_links
    del after["events_event_publications"]
    # A new model adds rows (its content type, its permissions); none may go.
    lost = {
        table: len(set(data["rows"]) - set(after.get(table, {}).get("rows", [])))
        for table, data in before.items()
    }
    lost = {table: count for table, count in lost.items() if count}
    assert not lost, f"rows changed or lost by the migration: {lost}"
    unapplied = _manage(BASE_DIR, env, "showmigrations", "--plan")
    assert "[ ]" not in unapplied
    # The search documents written by the old code still find each member.
    found = json.loads(_manage(BASE_DIR, env, "shell", "-c", SEARCH).splitlines()[-1])
    for key, hits in found["found"].items():
        assert key.split(" / ")[0] in hits, (key, hits)


def _pop_column(table: dict, column: str) -> set[tuple[str, str]]:
    """Drop `column` from a table's rows; return its non-null (id, value) pairs."""
    columns = table["columns"]
    at, key = columns.index(column), columns.index("id")
    rows = [json.loads(row) for row in table["rows"]]
    columns.pop(at)
    table["rows"] = sorted(json.dumps(row[:at] + row[at + 1 :]) for row in rows)
    return {(row[key], row[at]) for row in rows if row[at] != "None"}


def _rows(root: Path, env: dict[str, str], wanted: dict | None) -> dict:
    script = ROWS.replace("WANTED", repr(wanted))
    return json.loads(_manage(root, env, "shell", "-c", script).splitlines()[-1])


def _manage(root: Path, env: dict[str, str], *args: str) -> str:
    result = subprocess.run(
        [sys.executable, "manage.py", *args],
        cwd=root,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert result.returncode == 0, (
        f"{args} in {root} failed:\n{result.stdout[-3000:]}\n{result.stderr[-5000:]}"
    )
    return result.stdout
