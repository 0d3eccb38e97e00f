"""Fast inserts for bulk loads, below the ORM."""

import contextlib
import gc
from collections.abc import Iterator, Sequence
from typing import TypeVar

from django.db import connection, models
from django.db.models.constants import OnConflict

T = TypeVar("T")


def chunks(items: Sequence[T], size: int) -> Iterator[Sequence[T]]:
    """`items` in consecutive slices of at most `size`."""
    for start in range(0, len(items), size):
        yield items[start : start + size]


def insert_rows(
    model: type[models.Model],
    fields: list[str],
    rows: list[tuple],
    batch: int = 10_000,
    *,
    ignore_conflicts: bool = False,
) -> None:
    """Insert plain tuples as bulk_create would store them, several times faster.

    Each value goes through its field's `pre_save` and `get_db_prep_save`, as the
    ORM's own inserts do: give values in Python's form (a dict for JSON, an aware
    datetime), never pre-encoded. Columns not named take the field's default. With
    `ignore_conflicts`, a row that breaks a unique constraint is left out, as
    bulk_create(ignore_conflicts=True) does.
    """
    if not rows:
        return
    if ignore_conflicts and connection.vendor == "postgresql":
        # COPY cannot leave rows out, and executemany took twice as long as
        # bulk_create's multi-row INSERTs there.
        model.objects.bulk_create(
            [model(**dict(zip(fields, row, strict=True))) for row in rows],
            ignore_conflicts=True,
            batch_size=1000,
        )
        return
    named, per_row, rest = _columns(model._meta, fields)
    row_defaults = tuple(f.get_default() for f in per_row)
    defaults = tuple(f.get_db_prep_save(f.get_default(), connection) for f in rest)
    prepare = _Preparation(model, [*named, *per_row])

    def values(row: tuple) -> tuple:
        return (*prepare((*row, *row_defaults)), *defaults)

    table = model._meta.db_table
    columns = ", ".join(f'"{f.column}"' for f in [*named, *per_row, *rest])
    with connection.cursor() as cursor:
        if connection.vendor == "postgresql":
            # COPY is PostgreSQL's bulk-load path: about twice as fast again.
            copy_sql = f'COPY "{table}" ({columns}) FROM STDIN'
            # The driver's own cursor: its errors become Django's (IntegrityError…)
            # as they do through Django's cursor.
            with connection.wrap_database_errors, cursor.cursor.copy(copy_sql) as copy:
                for row in rows:
                    copy.write_row(values(row))
            return
        # executemany beat multi-row INSERTs on SQLite.
        conflict = OnConflict.IGNORE if ignore_conflicts else None
        sql = _insert_sql(table, columns, [*named, *per_row, *rest], conflict)
        for chunk in chunks(rows, batch):
            cursor.executemany(sql, [values(row) for row in chunk])


def _columns(
    meta: models.options.Options, fields: list[str]
) -> tuple[list[models.Field], list[models.Field], list[models.Field]]:
    """The named fields, the unnamed ones prepared per row (their own pre_save, as
    auto_now has), and the unnamed ones whose default is prepared once."""
    named = [meta.get_field(f) for f in fields]
    rest = [
        f
        for f in meta.concrete_fields
        if f not in named and not (f.primary_key and f.get_default() is None)
    ]
    per_row = [f for f in rest if _has_own_pre_save(f)]
    return named, per_row, [f for f in rest if f not in per_row]


def _insert_sql(
    table: str, columns: str, fields: list[models.Field], conflict: OnConflict | None
) -> str:
    ops = connection.ops
    marks = ", ".join(["%s"] * len(fields))
    return (
        f'{ops.insert_statement(on_conflict=conflict)} "{table}" ({columns}) '
        f"VALUES ({marks}) {ops.on_conflict_suffix_sql(fields, conflict, [], [])}"
    ).rstrip()


class _Preparation:
    """A row's values in the database's form, as the ORM's insert compiler makes
    them: `pre_save` (auto_now, identifiers' normal form), then `get_db_prep_save`
    with this connection (timestamps, JSON)."""

    def __init__(self, model: type[models.Model], fields: list[models.Field]) -> None:
        self.fields = fields
        # pre_save reads the value from an instance and may write it back: one
        # instance carries each value through the fields that define their own.
        self.carrier = model()
        self.own_pre_save = [_has_own_pre_save(f) for f in fields]
        # A value already of the type a plain column stores is its own database
        # form (get_db_prep_save would return it unchanged): skipped, as it is
        # most of a generated lab's values and half the time of preparing them.
        self.stored_as = [_stored_as(f) for f in fields]

    def __call__(self, row: tuple) -> list[object]:
        values = []
        for f, own, plain, value in zip(
            self.fields, self.own_pre_save, self.stored_as, row, strict=True
        ):
            if own:
                setattr(self.carrier, f.attname, value)
                value = f.pre_save(self.carrier, True)
            elif value is None or type(value) is plain:
                values.append(value)
                continue
            values.append(f.get_db_prep_save(value, connection))
        return values


def _has_own_pre_save(field: models.Field) -> bool:
    if isinstance(field, models.DateField):  # DateTimeField too
        return field.auto_now or field.auto_now_add
    return type(field).pre_save is not models.Field.pre_save


# Column types whose preparation returns a value of this Python type unchanged
# (exact classes: a subclass may prepare differently, e.g. the identifier fields).
_PLAIN = {
    models.CharField: str,
    models.TextField: str,
    models.SlugField: str,
    models.EmailField: str,
    models.URLField: str,
    models.BooleanField: bool,
    models.IntegerField: int,
    models.SmallIntegerField: int,
    models.BigIntegerField: int,
    models.PositiveIntegerField: int,
    models.PositiveSmallIntegerField: int,
    models.PositiveBigIntegerField: int,
    models.BigAutoField: int,
    models.AutoField: int,
    models.FloatField: float,
}


def _stored_as(field: models.Field) -> type | None:
    if isinstance(field, models.ForeignKey):
        return _stored_as(field.target_field)
    return _PLAIN.get(type(field))


@contextlib.contextmanager
def large_cache(megabytes: int = 256) -> Iterator[None]:
    """SQLite: a larger page cache for this connection while a bulk write runs.

    The default 2 MB cache cannot hold the indexes of 100,000 rows, so inserts
    re-read their pages. Web workers keep the default, so that their memory stays
    small.
    """
    if connection.vendor != "sqlite":
        yield
        return
    with connection.cursor() as cursor:
        cursor.execute("PRAGMA cache_size")
        (previous,) = cursor.fetchone()
        cursor.execute(f"PRAGMA cache_size = -{megabytes * 1024}")
    try:
        yield
    finally:
        with connection.cursor() as cursor:
            cursor.execute(f"PRAGMA cache_size = {int(previous)}")


@contextlib.contextmanager
def without_cycle_collection() -> Iterator[None]:
    """Pause Python's cyclic garbage collector while a bulk load runs.

    A load keeps hundreds of thousands of new objects alive, and the collector
    walks them again and again to find no garbage. Reference counting still frees
    everything as usual; cycles made meanwhile are collected once the block ends.
    The switch is per process: in a threaded server other requests run without
    cycle collection for that time.
    """
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()
