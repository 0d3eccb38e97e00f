"""`make backup` and `make restore`, run for real against databases of their own."""

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

BASE_DIR = Path(__file__).resolve().parents[2]

pytestmark = pytest.mark.skipif(shutil.which("make") is None, reason="needs make")

# Records the demo does not have: accounts with a group, permissions, an API
# token, an admin history entry, and a deleted user so that user ids have a gap.
ACCOUNTS = """
from django.contrib.admin.models import CHANGE, LogEntry
from django.contrib.auth.models import Group, Permission, User
from django.contrib.contenttypes.models import ContentType
from rest_framework.authtoken.models import Token
from people.models import Person

User.objects.create_user("gone", password="a-long-test-password").delete()
editors = Group.objects.create(name="Editors")
editors.permissions.set(
    Permission.objects.filter(codename__in=["change_person", "change_publication"])
)
admin = User.objects.create_superuser("admin", "admin@example.org", "a-long-password")
editor = User.objects.create_user("editor", "ed@example.org", "another-long-password")
editor.groups.add(editors)
editor.user_permissions.add(Permission.objects.get(codename="add_event"))
Token.objects.create(user=editor)
person = Person.objects.order_by("pk").first()
LogEntry.objects.create(
    user=admin,
    content_type=ContentType.objects.get_for_model(Person),
    object_id=str(person.pk),
    object_repr=str(person),
    action_flag=CHANGE,
    change_message="Changed headline.",
)
"""

# Each member's first topic, searched for through the API: who is found.
SEARCH = """
import json
from django.db import connection
from django.test import Client
from people.models import Person

client = Client(HTTP_HOST="localhost")
found = {}
for person in Person.objects.prefetch_related("topics").order_by("slug"):
    for topic in list(person.topics.all())[:1]:
        response = client.get("/api/people/", {"q": topic.name})
        assert response.status_code == 200, response.content
        found[f"{person.slug} / {topic.name}"] = [
            hit["slug"] for hit in response.json()["results"]
        ]
print(json.dumps({"database": str(connection.settings_dict["NAME"]), "found": found}))
"""

# The restored database takes new records: its id sequences are past the old ids.
NEW_RECORDS = """
import datetime
from core.models import Topic
from events.models import Event
from people.models import Person
from publications.models import Authorship, Publication

topic = Topic.objects.create(name="Restored topic", slug="restored-topic")
person = Person.objects.create(
    given_name="New", family_name="Member", display_name="New Member",
    slug="new-member", role="phd_student",
)
paper = Publication.objects.create(title="New paper", slug="new-paper", year=2026)
Authorship.objects.create(publication=paper, position=1, name="New Member")
Event.objects.create(title="New event", slug="new-event", date=datetime.date.today())
"""


@pytest.mark.django_db(transaction=True)
def test_the_backup_is_readable_by_its_owner_only(tmp_path):
    """The file (password hashes, API tokens) is 0600, a directory it makes 0700."""
    from django.db import connection

    if connection.vendor != "sqlite":
        pytest.skip("copies the migrated test database with SQLite's VACUUM INTO")
    database = tmp_path / "copy.sqlite3"
    with connection.cursor() as cursor:
        cursor.execute("VACUUM INTO %s", [str(database)])
    backup = tmp_path / "backups" / "nested" / "lab.json"
    old_umask = os.umask(0o022)  # as a shell's usual umask
    try:
        _make(_env(f"sqlite:///{database}", tmp_path), "backup", BACKUP=backup)
    finally:
        os.umask(old_umask)
    assert json.loads(backup.read_text()) is not None
    assert backup.stat().st_mode & 0o777 == 0o600
    assert (tmp_path / "backups").stat().st_mode & 0o777 == 0o700
    assert backup.parent.stat().st_mode & 0o777 == 0o700


# The source database: migrated, the demo loaded, the records above added (one
# process rather than three: what is tested is the backup and the restore).
SOURCE = (
    "from django.core.management import call_command\n"
    "call_command('migrate', interactive=False, verbosity=0)\n"
    "call_command('load_demo', verbosity=0)\n" + ACCOUNTS
)


@pytest.mark.slow
def test_backup_restores_every_row_into_an_empty_database(scratch_database, tmp_path):
    """Every row of a demo database comes back through `make backup` and `make
    restore`, and searching finds the same members.

    Slow: two databases migrated and filled, `make restore` run for real, each
    database read back by a process of its own."""
    source = _env(scratch_database("source"), tmp_path)
    _manage(source, "shell", "-c", SOURCE)
    backup = tmp_path / "backups" / "lab.json"

    _make(source, "backup", BACKUP=backup)
    restored = _env(scratch_database("restored"), tmp_path)
    _make(restored, "restore", FILE=backup)

    before, searched = _read(source, tmp_path / "before.json")
    # The restored database takes new records once it has been read.
    after, found = _read(restored, tmp_path / "after.json", then=NEW_RECORDS)
    assert before["people.person"] and before["authtoken.token"]
    assert sorted(after) == sorted(before)
    differing = {
        label: _field_differences(before[label], after[label])
        for label in before
        if after[label] != before[label]
    }
    assert not differing, f"rows that differ after the restore: {differing}"

    assert searched["found"], searched
    for key, hits in searched["found"].items():
        assert key.split(" / ")[0] in hits, (key, hits)
    assert found["found"] == searched["found"]
    for run, env in [(searched, source), (found, restored)]:
        assert run["database"] in env["DATABASE_URL"]


def _env(database_url: str, tmp_path: Path) -> dict[str, str]:
    env = {
        **os.environ,
        "DATABASE_URL": database_url,
        # As the Makefile's MANAGE_ENV: the development settings.
        "DEBUG": "1",
        "MEDIA_ROOT": str(tmp_path / "media"),
    }
    # The project's own settings, and no cache shared with other processes.
    for name in ("DJANGO_SETTINGS_MODULE", "CACHE_URL"):
        env.pop(name, None)
    return env


def _run(args: list[str], env: dict[str, str]) -> str:
    result = subprocess.run(
        args, cwd=BASE_DIR, env=env, capture_output=True, text=True, timeout=180
    )
    assert result.returncode == 0, (
        f"{' '.join(args)} failed:\n{result.stdout[-3000:]}\n{result.stderr[-5000:]}"
    )
    return result.stdout


def _manage(env: dict[str, str], *args: str) -> str:
    return _run([sys.executable, "manage.py", *args], env)


def _make(env: dict[str, str], target: str, **variables) -> str:
    # The test's own interpreter, and never a reinstall because a requirements
    # file is newer than the virtualenv's stamp.
    return _run(
        [
            "make",
            "--no-print-directory",
            "-o",
            ".venv/.installed",
            f"BIN={Path(sys.executable).parent}",
            target,
            *(f"{name}={value}" for name, value in variables.items()),
        ],
        env,
    )


# Computed from the rest, left out of backups and rebuilt by the restore.
DERIVED = {
    "people.persontopic",
    "people.similarperson",
    "people.stalesimilarity",
    "search.embedding",
}


def _read(
    env: dict[str, str], out: Path, then: str = ""
) -> tuple[dict[str, list[str]], dict]:
    """Every row (as `_rows`) and who the search finds, read by one process."""
    dump = (
        "from django.core.management import call_command\n"
        f"call_command('dumpdata', natural_foreign=True, natural_primary=True, "
        f"exclude=['sessions'], output={str(out)!r}, verbosity=0)\n"
    )
    printed = _manage(env, "shell", "-c", dump + SEARCH + then)
    return _rows(out), json.loads(printed.strip().splitlines()[-1])


def _rows(dump: Path) -> dict[str, list[str]]:
    """Every row of every table but sessions, keyed by model, in a canonical form."""
    tables: dict[str, list[str]] = {}
    for record in json.loads(dump.read_text()):
        if record["model"] in DERIVED:
            continue
        if record["model"] in (
            "search.searchterm",
            "search.facetvalue",
            "search.facetcount",
        ):
            # Rebuilt from scratch: the same words and counts, numbered anew.
            record.pop("pk")
        # A time whose microseconds are under 1,000 is written "…:41.000Z" and
        # reads back as whole seconds, written "…:41Z": the same instant.
        text = re.sub(
            r"(T\d\d:\d\d:\d\d)\.000Z", r"\1Z", json.dumps(record, sort_keys=True)
        )
        tables.setdefault(record["model"], []).append(text)
    return {label: sorted(rows) for label, rows in tables.items()}


def _field_differences(before: list[str], after: list[str]) -> list:
    """For each record that differs: its key and the fields whose values differ."""
    old = {_key(row): json.loads(row) for row in set(before) - set(after)}
    new = {_key(row): json.loads(row) for row in set(after) - set(before)}
    return [
        (
            key,
            {
                name: (
                    old.get(key, {}).get("fields", {}).get(name),
                    new.get(key, {}).get("fields", {}).get(name),
                )
                for name in {
                    *old.get(key, {}).get("fields", {}),
                    *new.get(key, {}).get("fields", {}),
                }
                if old.get(key, {}).get("fields", {}).get(name)
                != new.get(key, {}).get("fields", {}).get(name)
            },
        )
        for key in sorted(old.keys() | new.keys())
    ]


def _key(row: str) -> str:
    record = json.loads(row)
    return json.dumps([record.get("pk"), record["fields"].get("slug")])
