"""Keep search documents in step with the records they describe.

Writes inside `deferred()` (imports, the admin, the demo load) are indexed once, when
the block ends; any other write is indexed at once.
"""

import contextlib
import threading
from collections import defaultdict
from collections.abc import Iterable, Iterator
from concurrent.futures import ThreadPoolExecutor

from django.db import connection, transaction
from django.db.models.sql import Query

from core.bulk import insert_rows, without_cycle_collection
from core.cache import invalidate
from search import evidence, facet_counts, semantic
from search.documents import TEXT_FIELDS, segmented, topic_texts
from search.engines import PostgresEngine
from search.models import SearchTerm
from search.operations import (
    FTS_COLUMNS,
    TRIGGER_SUFFIXES,
    fts_table,
    gin_index_sql,
    sqlite_triggers,
)
from search.query import words_of
from search.registry import after_index_hooks, searchables

_state = threading.local()
# From this many new documents on, the full-text index is written in one statement.
_BULK_FTS_ROWS = 200


def _pending() -> dict[str, set[int]] | None:
    return getattr(_state, "pending", None)


@contextlib.contextmanager
def deferred() -> Iterator[None]:
    """Collect the records to re-index and index them once at the end of the block."""
    if _pending() is not None:  # already deferring: the outer block indexes
        yield
        return
    _state.pending = defaultdict(set)
    try:
        yield
        pending = _state.pending
    finally:
        _state.pending = None
    for kind, ids in pending.items():
        index(kind, ids)


def _deleting() -> dict[str, set[int]]:
    if not hasattr(_state, "deleting"):
        _state.deleting = defaultdict(set)
    return _state.deleting


def mark_deleting(kind: str, pk: int) -> None:
    """Index no document for this record until `unmark_deleting` (its deletion)."""
    _deleting()[kind].add(pk)


def unmark_deleting(kind: str, pk: int) -> None:
    _deleting()[kind].discard(pk)


def schedule(kind: str, ids: Iterable[int | None]) -> None:
    ids = {pk for pk in ids if pk is not None}
    if not ids:
        return
    pending = _pending()
    if pending is not None:
        pending[kind] |= ids
    else:
        index(kind, ids)


@transaction.atomic
def index(kind: str, ids: Iterable[int], topics: dict[int, str] | None = None) -> int:
    """Rebuild the documents of the given records; drop those of deleted ones."""
    searchable = searchables()[kind]
    ids = set(ids)
    if not ids:
        return 0
    document = searchable.document
    existing = set(document.objects.filter(pk__in=ids).values_list("pk", flat=True))
    # A record whose deletion is cascading gets no document: its related rows go
    # first, and their signals would otherwise write one for it again.
    live = ids - _deleting()[kind]
    rows = list(searchable.build(live, topic_texts() if topics is None else topics))
    built = {row.pk for row in rows}
    document.objects.filter(pk__in=existing - built).delete()
    if semantic.enabled():
        semantic.embed(kind, rows, removed=existing - built)
        if evidence.registered(kind):
            evidence.store(kind, ids, live)
    rows = [segmented(row) for row in rows]
    # The suggestion vocabulary: every column but the least weighted one.
    words = words_of("\n".join(f"{r.heading}\n{r.topics}\n{r.body}" for r in rows))
    _insert_documents(document, [row for row in rows if row.pk not in existing])
    to_update = [document(**row._asdict()) for row in rows if row.pk in existing]
    document.objects.bulk_update(to_update, list(TEXT_FIELDS), batch_size=500)
    if connection.vendor == "postgresql" and to_update:
        document.objects.filter(pk__in=existing & built).update(
            vector=PostgresEngine.vector()
        )
    terms = [(word,) for word in sorted(words)]
    insert_rows(SearchTerm, ["word"], terms, ignore_conflicts=True)
    for hook in after_index_hooks(kind):
        hook(live)
    facet_counts.store(kind, ids, live)  # after the hooks: they write what some count
    # Bulk writers (imports, generators) fire no signals; they all end up here.
    invalidate()
    return len(rows)


def _insert_documents(document, rows: list[tuple], batch: int = 1000) -> None:
    """Insert new documents; on PostgreSQL with their vectors computed in the
    same statement. Filling them in by an UPDATE afterwards left each row's first
    version behind: a rebuilt table half dead space, which every broad search read."""
    pk = document._meta.pk
    if connection.vendor == "sqlite" and len(rows) >= _BULK_FTS_ROWS:
        _insert_documents_sqlite(document, rows)
        return
    if connection.vendor != "postgresql":
        insert_rows(document, [pk.attname, *TEXT_FIELDS], rows)
        return
    table = document._meta.db_table
    query = Query(document)
    vector, vector_params = query.get_compiler(connection=connection).compile(
        PostgresEngine.vector().resolve_expression(query)
    )
    names = [pk.column, *(document._meta.get_field(f).column for f in TEXT_FIELDS)]
    columns = ", ".join(f'"{name}"' for name in names)
    with connection.cursor() as cursor:
        for start in range(0, len(rows), batch):
            chunk = rows[start : start + batch]
            values = ", ".join(["(%s, %s, %s, %s, %s)"] * len(chunk))
            # The rows are named like the table, so the vector expression (which
            # names the table's columns) reads them.
            cursor.execute(
                f'INSERT INTO "{table}" ({columns}, "vector") SELECT {columns}, '
                f'{vector} FROM (VALUES {values}) AS "{table}" ({columns})',
                [*vector_params, *(value for row in chunk for value in row)],
            )


def _insert_documents_sqlite(document, rows: list[tuple]) -> None:
    """Many new documents: the rows, then their full-text entries in one statement.

    Run once per row, the FTS5 trigger costs as much again as the full-text insert
    itself. Within this transaction it is dropped and made again, as `rebuild`
    does (other connections see neither change before the commit); while a
    rebuild has it dropped, the rebuild indexes the rows itself.
    """
    table = document._meta.db_table
    pk = document._meta.pk.column
    fts = fts_table(table)
    triggers = dict(zip(TRIGGER_SUFFIXES, sqlite_triggers(table, pk), strict=True))
    columns = [document._meta.pk.attname, *TEXT_FIELDS]
    with transaction.atomic(), connection.cursor() as cursor:
        cursor.execute(
            "SELECT 1 FROM sqlite_master WHERE type = 'trigger' AND name = %s",
            [f"{table}_ai"],
        )
        if cursor.fetchone() is None:
            insert_rows(document, columns, rows)
            return
        cursor.execute(f'DROP TRIGGER "{table}_ai"')
        insert_rows(document, columns, rows)
        cursor.executemany(
            f'INSERT INTO "{fts}"(rowid, {FTS_COLUMNS}) VALUES (%s, %s, %s, %s, %s)',
            rows,
        )
        cursor.execute(triggers["ai"])


@without_cycle_collection()
@transaction.atomic
def rebuild(kinds: Iterable[str] | None = None) -> dict[str, int]:
    """Drop and rebuild the documents (and the index built from them) from scratch.

    Each kind is rebuilt in one transaction, and its full-text index in one pass
    at the end rather than row by row: on PostgreSQL the GIN index is dropped first
    and built again; on SQLite the FTS5 triggers are dropped and the index rebuilt
    from the table. Searches and writes of that kind wait for the transaction.
    """
    topics = topic_texts()
    counts = {}
    kinds = list(kinds or searchables())
    _forget_terms(kinds)
    for kind in kinds:
        searchable = searchables()[kind]
        table = searchable.document._meta.db_table
        with transaction.atomic(), connection.cursor() as cursor:
            if connection.vendor == "postgresql":
                # Check the deferred foreign keys now: neither TRUNCATE nor CREATE
                # INDEX runs on a table with pending trigger events.
                cursor.execute("SET CONSTRAINTS ALL IMMEDIATE")
                cursor.execute(f'DROP INDEX IF EXISTS "{table}_vector_gin"')
                # DELETE would leave every old row behind as dead space.
                cursor.execute(f'TRUNCATE "{table}"')
            else:
                if connection.vendor == "sqlite":
                    for suffix in TRIGGER_SUFFIXES:
                        cursor.execute(f'DROP TRIGGER IF EXISTS "{table}_{suffix}"')
                searchable.document.objects.all().delete()
            facet_counts.drop(kind)
            ids = list(searchable.model.objects.values_list("pk", flat=True))
            counts[kind] = index(kind, ids, topics) if ids else 0
            if semantic.enabled():
                semantic.drop_missing(kind, searchable.model.objects.all())
                if evidence.registered(kind):
                    evidence.drop_missing(kind, searchable.model.objects.all())
            if connection.vendor == "postgresql":
                cursor.execute("SET CONSTRAINTS ALL IMMEDIATE")
                cursor.execute(gin_index_sql(table))
            elif connection.vendor == "sqlite":
                fts = fts_table(table)
                cursor.execute(f'INSERT INTO "{fts}"("{fts}") VALUES (\'rebuild\')')
                pk = searchable.document._meta.pk.column
                for statement in sqlite_triggers(table, pk):
                    cursor.execute(statement)
    return counts


def rebuild_in_parallel(kinds: Iterable[str] | None = None) -> dict[str, int]:
    """`rebuild`, one kind per thread, connection and transaction, on PostgreSQL
    outside a transaction: the server computes one kind's search vectors while
    Python builds the next kind's documents. Each kind commits on its own.
    Elsewhere, the same as `rebuild`.
    """
    kinds = list(kinds or searchables())
    if connection.vendor != "postgresql" or connection.in_atomic_block:
        return rebuild(kinds)

    def one(kind: str) -> dict[str, int]:
        try:
            return rebuild([kind])
        finally:
            connection.close()  # this thread's own connection

    _forget_terms(kinds)
    with ThreadPoolExecutor(len(kinds)) as pool:
        return {k: n for counts in pool.map(one, kinds) for k, n in counts.items()}


def _forget_terms(kinds: list[str]) -> None:
    # Re-indexing adds words and never takes any away (no document is read back):
    # rebuilding every kind builds the suggestion vocabulary again from nothing.
    if set(kinds) >= set(searchables()):
        SearchTerm.objects.all().delete()


def index_missing() -> dict[str, int]:
    """Index the records that have no document yet (e.g. rows written before search)."""
    counts = {}
    for kind, searchable in searchables().items():
        indexed = searchable.document.objects.values("pk")
        ids = searchable.model.objects.exclude(pk__in=indexed).values_list(
            "pk", flat=True
        )
        counts[kind] = index(kind, list(ids))
    return counts
