"""The shared test data (tests/snapshots.py): a restore is the data as built."""

import datetime

import pytest
from django.db import connection, transaction

from people.models import Person
from tests import factories
from tests.snapshots import _restart_sequences, read_tables, take

pytestmark = pytest.mark.django_db


def _without_times(tables: dict) -> dict:
    """Rows with the clock's times (created, modified) left out: a build now and
    one at the start of the session write different ones."""
    return {
        name: (
            columns,
            [
                tuple(
                    "<time>" if isinstance(value, datetime.datetime) else value
                    for value in row
                )
                for row in rows
            ],
        )
        for name, (columns, rows) in tables.items()
    }


def _fresh(build) -> dict:
    with transaction.atomic():
        with connection.cursor() as cursor:
            _restart_sequences(cursor)
        build()
        tables = read_tables(derived=True)
        transaction.set_rollback(True)
    return tables


def _restored(restore, build) -> dict:
    with transaction.atomic():
        restore(build)
        tables = read_tables(derived=True)
        if connection.vendor == "sqlite":
            with connection.cursor() as cursor:
                cursor.execute(
                    "SELECT name FROM sqlite_master "
                    "WHERE sql LIKE 'CREATE VIRTUAL TABLE%fts5%'"
                )
                for (fts,) in cursor.fetchall():
                    # Raises if the index does not match its content table.
                    check = f"INSERT INTO {fts}({fts}) VALUES ('integrity-check')"
                    cursor.execute(check)
        transaction.set_rollback(True)
    return tables


def test_a_restored_demo_lab_equals_a_fresh_load(restore):
    restored = _restored(restore, factories.demo_lab)
    loaded = _fresh(factories.demo_lab)
    assert restored["people_person"][1], "the demo lab has members"
    assert _without_times(restored) == _without_times(loaded)


def _pair() -> list[Person]:
    return [factories.person(slug="ada"), factories.person(slug="bo")]


def test_the_builder_value_comes_back_as_a_copy_with_the_same_ids(restore):
    first = restore(_pair)
    assert [p.slug for p in first] == ["ada", "bo"]
    assert [p.pk for p in first] == list(
        Person.objects.order_by("pk").values_list("pk", flat=True)
    )
    first[0].slug = "changed"
    # New rows take ids after the restored ones.
    assert factories.person(slug="cy").pk > first[1].pk


def test_a_builder_that_changes_existing_rows_is_refused():
    factories.person(slug="ada")

    def build():
        Person.objects.update(slug="renamed")

    with pytest.raises(ValueError, match="people_person"):
        take(build)
    assert Person.objects.get().slug == "ada"
