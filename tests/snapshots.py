"""Expensive test data built once per test process, put back as rows in each test.

A builder (loading the demo lab, a constructed lab of factories) runs once, inside a
savepoint that is rolled back; the rows it added to every table are kept in memory.
Each test that asks for the data gets those rows inserted into its own transaction
(milliseconds, where the builder takes seconds on PostgreSQL), with the ids the
builder gave them and the value it returned. Id sequences start afresh before a
build, so the ids are the same on SQLite and PostgreSQL, whatever ran earlier.

SQLite's full-text indexes are not copied: the document tables' triggers fill them
as the rows go in, as they do for every write. tests/test_snapshots.py checks that
a restore equals a fresh build, index included.
"""

import pickle
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from django.apps import apps
from django.conf import settings
from django.core.cache import cache
from django.core.management.color import no_style
from django.db import connection, transaction

Row = tuple[Any, ...]


@dataclass(frozen=True)
class Table:
    name: str
    columns: tuple[str, ...]
    rows: tuple[Row, ...]


@dataclass(frozen=True)
class Snapshot:
    tables: tuple[Table, ...]
    result: bytes  # the builder's return value, pickled: each test gets a copy

    def restore(self) -> Any:
        """Insert the rows into the current database; return the builder's value."""
        with transaction.atomic(), connection.cursor() as cursor:
            for table in self.tables:
                columns = ", ".join(map(connection.ops.quote_name, table.columns))
                marks = ", ".join(["%s"] * len(table.columns))
                cursor.executemany(
                    f"INSERT INTO {connection.ops.quote_name(table.name)} "
                    f"({columns}) VALUES ({marks})",
                    table.rows,
                )
            _advance_sequences(cursor, {table.name for table in self.tables})
        return pickle.loads(self.result)


# Settings that change what a builder writes (search by meaning adds vectors): a
# snapshot is kept for each combination of their values.
SNAPSHOT_SETTINGS = ("SEMANTIC_SEARCH",)


class Snapshots(dict):
    """The snapshots taken in this process, by builder and settings."""

    def restore(self, build: Callable[[], Any]) -> Any:
        """Put back the rows `build` writes (built on first use); its value."""
        name = f"{build.__module__}.{build.__qualname__}"
        key = (name, *(getattr(settings, s) for s in SNAPSHOT_SETTINGS))
        if key not in self:
            self[key] = take(build)
        result = self[key].restore()
        # Nothing cached before the rows came back may be served after.
        cache.clear()
        return result


def take(build: Callable[[], Any]) -> Snapshot:
    """Run `build` in a savepoint, keep the rows it added, and roll it back."""
    with transaction.atomic():
        with connection.cursor() as cursor:
            _restart_sequences(cursor)
        before = read_tables()
        result = pickle.dumps(build())
        after = read_tables()
        transaction.set_rollback(True)
    tables = []
    for name, (columns, rows) in after.items():
        old = before.get(name, (columns, []))[1]
        kept = Counter(map(_key, old))
        if gone := kept - Counter(map(_key, rows)):
            raise ValueError(f"the builder changed or deleted rows of {name}: {gone}")
        # Rows in the order the builder left them; those that were there stay out.
        added = []
        for row in rows:
            key = _key(row)
            if kept[key]:
                kept[key] -= 1
            else:
                added.append(row)
        if added:
            tables.append(Table(name, columns, tuple(added)))
    return Snapshot(tuple(tables), result)


def read_tables(*, derived: bool = False) -> dict[str, tuple[tuple[str, ...], list]]:
    """Every row of every table, in primary key order where there is one.

    `derived` adds what the database derives from the rows (SQLite's full-text
    index sizes), for comparing two databases rather than copying one.
    """
    tables = {}
    with connection.cursor() as cursor:
        names = _data_tables(cursor)
        if derived and connection.vendor == "sqlite":
            names += _derived_tables(cursor)
        for name in names:
            columns = _insertable_columns(cursor, name)
            quoted = ", ".join(map(connection.ops.quote_name, columns))
            cursor.execute(
                f"SELECT {quoted} FROM {connection.ops.quote_name(name)} ORDER BY 1"
            )
            tables[name] = (columns, [_plain(row) for row in cursor.fetchall()])
    return tables


# Tables of the migration history and of SQLite's own bookkeeping.
SKIPPED = {"django_migrations", "sqlite_sequence"}


def _data_tables(cursor) -> list[str]:
    names = connection.introspection.table_names(cursor, include_views=False)
    if connection.vendor == "sqlite":
        virtual = [
            name
            for (name,) in cursor.execute(
                "SELECT name FROM sqlite_master "
                "WHERE type = 'table' AND sql LIKE 'CREATE VIRTUAL TABLE%'"
            ).fetchall()
        ]
        # An FTS5 table and its shadow tables (…_data, _idx, _docsize, _config).
        names = [
            n
            for n in names
            if not any(n == v or n.startswith(f"{v}_") for v in virtual)
        ]
    return sorted(n for n in names if n not in SKIPPED)


def _derived_tables(cursor) -> list[str]:
    return [
        name
        for (name,) in cursor.execute(
            "SELECT name FROM sqlite_master "
            "WHERE type = 'table' AND name LIKE '%_fts_docsize'"
        ).fetchall()
    ]


def _insertable_columns(cursor, table: str) -> tuple[str, ...]:
    """The columns of a table that take values: not the generated ones."""
    if connection.vendor == "postgresql":
        cursor.execute(
            "SELECT column_name FROM information_schema.columns "
            "WHERE table_schema = current_schema() AND table_name = %s "
            "AND is_generated = 'NEVER' ORDER BY ordinal_position",
            [table],
        )
        return tuple(name for (name,) in cursor.fetchall())
    cursor.execute(f"PRAGMA table_xinfo({connection.ops.quote_name(table)})")
    # hidden: 0 a plain column, 1 hidden in a virtual table, 2 and 3 generated.
    return tuple(row[1] for row in cursor.fetchall() if row[6] == 0)


def _plain(row: Row) -> Row:
    return tuple(bytes(v) if isinstance(v, memoryview) else v for v in row)


def _key(row: Row) -> Row:
    return tuple(
        repr(value) if isinstance(value, list | dict) else value for value in row
    )


def _models_of(tables: set[str]) -> list:
    return [
        model
        for model in apps.get_models(include_auto_created=True)
        if model._meta.db_table in tables
    ]


def _advance_sequences(cursor, tables: set[str]) -> None:
    """PostgreSQL: hand out ids after the restored ones (SQLite does so itself)."""
    for sql in connection.ops.sequence_reset_sql(no_style(), _models_of(tables)):
        cursor.execute(sql)


def _restart_sequences(cursor) -> None:
    """Each id sequence continues from its table's rows: from 1 in an empty one."""
    tables = _data_tables(cursor)
    if connection.vendor == "postgresql":
        _advance_sequences(cursor, set(tables))
        return
    # SQLite's AUTOINCREMENT counters are the rows of sqlite_sequence; an empty
    # table's counter goes (a flush in an earlier test leaves them behind).
    for table in tables:
        cursor.execute(f"SELECT 1 FROM {connection.ops.quote_name(table)} LIMIT 1")
        if cursor.fetchone() is None:
            cursor.execute("DELETE FROM sqlite_sequence WHERE name = %s", [table])
