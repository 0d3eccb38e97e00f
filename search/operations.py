"""Migration operations that build the full-text index the database engine offers."""

from django.db.migrations.operations.base import Operation

PG_CONFIG = "directory_search"
TRIGGER_SUFFIXES = ("ai", "ad", "au")
FTS_COLUMNS = "a, b, c, d"


def fts_table(db_table: str) -> str:
    return f"{db_table}_fts"


class DocumentOperation(Operation):
    """A change to a document model's table that leaves the model's state alone."""

    reversible = True

    def __init__(self, model_name: str) -> None:
        self.model_name = model_name

    def state_forwards(self, app_label, state) -> None:
        pass

    def _model(self, app_label, state):
        return state.apps.get_model(app_label, self.model_name)


class CreateFullTextIndex(DocumentOperation):
    """SQLite: an FTS5 external-content table kept in sync by triggers.

    PostgreSQL: a GIN index on the document's tsvector column.
    """

    def describe(self) -> str:
        return f"Create the full-text index of {self.model_name}"

    def database_forwards(self, app_label, schema_editor, from_state, to_state) -> None:
        model = self._model(app_label, to_state)
        table = model._meta.db_table
        pk = model._meta.pk.column
        vendor = schema_editor.connection.vendor
        if vendor == "sqlite":
            for statement in _sqlite_create(table, pk):
                schema_editor.execute(statement)
        elif vendor == "postgresql":
            schema_editor.execute(gin_index_sql(table))

    def database_backwards(
        self, app_label, schema_editor, from_state, to_state
    ) -> None:
        model = self._model(app_label, from_state)
        table = model._meta.db_table
        vendor = schema_editor.connection.vendor
        if vendor == "sqlite":
            for suffix in TRIGGER_SUFFIXES:
                schema_editor.execute(f'DROP TRIGGER IF EXISTS "{table}_{suffix}"')
            schema_editor.execute(f'DROP TABLE IF EXISTS "{fts_table(table)}"')
        elif vendor == "postgresql":
            schema_editor.execute(f'DROP INDEX IF EXISTS "{table}_vector_gin"')


def gin_index_sql(table: str) -> str:
    """The GIN index over a document table's tsvector (PostgreSQL)."""
    return f'CREATE INDEX "{table}_vector_gin" ON "{table}" USING gin ("vector")'


def _sqlite_create(table: str, pk: str) -> list[str]:
    return [
        # Porter stems (quantized ~ quantization); accents fold (Jürgensen).
        f'CREATE VIRTUAL TABLE "{fts_table(table)}" USING fts5({FTS_COLUMNS}, '
        f'content="{table}", content_rowid="{pk}", '
        "tokenize='porter unicode61 remove_diacritics 2')",
        *sqlite_triggers(table, pk),
    ]


def sqlite_triggers(table: str, pk: str) -> list[str]:
    """The triggers that keep a document table's FTS5 index in step, row by row."""
    fts = fts_table(table)
    cols = FTS_COLUMNS
    new = "new.a, new.b, new.c, new.d"
    old = "old.a, old.b, old.c, old.d"
    delete_old = (
        f'INSERT INTO "{fts}"("{fts}", rowid, {cols}) '
        f"VALUES ('delete', old.\"{pk}\", {old});"
    )
    insert_new = f'INSERT INTO "{fts}"(rowid, {cols}) VALUES (new."{pk}", {new});'
    return [
        f'CREATE TRIGGER "{table}_ai" AFTER INSERT ON "{table}" BEGIN {insert_new} END',
        f'CREATE TRIGGER "{table}_ad" AFTER DELETE ON "{table}" BEGIN {delete_old} END',
        f'CREATE TRIGGER "{table}_au" AFTER UPDATE ON "{table}" BEGIN '
        f"{delete_old} {insert_new} END",
    ]


class CreateSearchConfiguration(Operation):
    """PostgreSQL: unaccent, pg_trgm and an English configuration that folds accents."""

    reversible = True

    def state_forwards(self, app_label, state) -> None:
        pass

    def describe(self) -> str:
        return "Create the PostgreSQL text search configuration"

    def database_forwards(self, app_label, schema_editor, from_state, to_state) -> None:
        if schema_editor.connection.vendor != "postgresql":
            return
        schema_editor.execute("CREATE EXTENSION IF NOT EXISTS unaccent")
        schema_editor.execute("CREATE EXTENSION IF NOT EXISTS pg_trgm")
        schema_editor.execute(
            f"""
            DO $$ BEGIN
              IF NOT EXISTS (
                SELECT 1 FROM pg_ts_config WHERE cfgname = '{PG_CONFIG}'
              ) THEN
                CREATE TEXT SEARCH CONFIGURATION {PG_CONFIG} (COPY = english);
                ALTER TEXT SEARCH CONFIGURATION {PG_CONFIG}
                  ALTER MAPPING FOR hword, hword_part, word
                  WITH unaccent, english_stem;
              END IF;
            END $$;
            """
        )

    def database_backwards(
        self, app_label, schema_editor, from_state, to_state
    ) -> None:
        if schema_editor.connection.vendor == "postgresql":
            schema_editor.execute(
                f"DROP TEXT SEARCH CONFIGURATION IF EXISTS {PG_CONFIG}"
            )


class CreateTrigramIndex(Operation):
    """A trigram GIN index for similarity look-ups (PostgreSQL only)."""

    reversible = True

    def __init__(self, model_name: str, field: str) -> None:
        self.model_name = model_name
        self.field = field

    def state_forwards(self, app_label, state) -> None:
        pass

    def describe(self) -> str:
        return f"Create a trigram index on {self.model_name}.{self.field}"

    def database_forwards(self, app_label, schema_editor, from_state, to_state) -> None:
        if schema_editor.connection.vendor != "postgresql":
            return
        table = to_state.apps.get_model(app_label, self.model_name)._meta.db_table
        schema_editor.execute(
            f'CREATE INDEX "{table}_{self.field}_trgm" ON "{table}" '
            f'USING gin ("{self.field}" gin_trgm_ops)'
        )

    def database_backwards(
        self, app_label, schema_editor, from_state, to_state
    ) -> None:
        if schema_editor.connection.vendor != "postgresql":
            return
        table = from_state.apps.get_model(app_label, self.model_name)._meta.db_table
        schema_editor.execute(f'DROP INDEX IF EXISTS "{table}_{self.field}_trgm"')


class KeepVectorsInline(DocumentOperation):
    """PostgreSQL: keep a document table's tsvectors in the row (storage MAIN).

    Every match reads the vector of each candidate row. A member's vector, built
    from all their papers, is a few KB: with the default storage most went to the
    TOAST table, and matching a common word fetched thousands of them from there;
    kept in the row, with the texts moved out instead, matching and ranking read
    one page per row. Existing vectors are rewritten to move in.
    """

    def describe(self) -> str:
        return f"Keep the tsvectors of {self.model_name} in the row"

    def _set(self, schema_editor, table: str, storage: str) -> None:
        schema_editor.execute(
            f'ALTER TABLE "{table}" ALTER COLUMN "vector" SET STORAGE {storage}'
        )
        # A stored value keeps its place until written again; `|| ''` makes a new
        # (equal) vector. Small ones were in the row already.
        schema_editor.execute(
            f'UPDATE "{table}" SET "vector" = "vector" || \'\'::tsvector '
            'WHERE pg_column_size("vector") > 1000'
        )

    def database_forwards(self, app_label, schema_editor, from_state, to_state) -> None:
        if schema_editor.connection.vendor == "postgresql":
            model = self._model(app_label, to_state)
            self._set(schema_editor, model._meta.db_table, "MAIN")

    def database_backwards(
        self, app_label, schema_editor, from_state, to_state
    ) -> None:
        if schema_editor.connection.vendor == "postgresql":
            model = self._model(app_label, from_state)
            self._set(schema_editor, model._meta.db_table, "EXTENDED")
