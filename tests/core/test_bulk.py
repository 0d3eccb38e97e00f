import datetime
import gc

import pytest
from django.db import IntegrityError, connection, transaction

from core.bulk import insert_rows, large_cache, without_cycle_collection
from publications.models import Publication
from publications.services import BibtexImportError, publication_import_bibtex
from search.models import SearchTerm


def test_cycle_collection_resumes_after_a_failed_import(db):
    assert gc.isenabled()
    with pytest.raises(BibtexImportError):
        publication_import_bibtex(text="@article{broken, title = {No end", source="x")
    assert gc.isenabled()


def test_cycle_collection_stays_off_when_it_was_off():
    gc.disable()
    try:
        with without_cycle_collection():
            assert not gc.isenabled()
        assert not gc.isenabled()
    finally:
        gc.enable()


@pytest.mark.skipif(connection.vendor != "sqlite", reason="an SQLite pragma")
def test_the_large_cache_is_given_back(db):
    def cache_size():
        with connection.cursor() as cursor:
            cursor.execute("PRAGMA cache_size")
            return cursor.fetchone()[0]

    before = cache_size()
    with pytest.raises(RuntimeError), large_cache(64):
        assert cache_size() == -64 * 1024
        raise RuntimeError
    assert cache_size() == before


def stored(model, pk: int) -> dict[str, str | None]:
    """The row as the database holds it: every column as text."""
    columns = [f.column for f in model._meta.concrete_fields if not f.primary_key]
    texts = ", ".join(f'CAST("{c}" AS TEXT)' for c in columns)
    with connection.cursor() as cursor:
        cursor.execute(
            f'SELECT {texts} FROM "{model._meta.db_table}" WHERE id = %s', [pk]
        )
        return dict(zip(columns, cursor.fetchone(), strict=True))


def test_insert_rows_stores_a_row_as_the_orm_saves_it(db):
    when = datetime.datetime(2024, 5, 6, 7, 8, 9, 123456, tzinfo=datetime.UTC)
    values = {
        "title": "Same row",
        "year": 2024,
        "doi": "https://doi.org/10.1000/ABC.1",
        "arxiv_id": "arXiv:2401.00001",
        "counts_by_year": [{"year": 2024, "cited_by_count": 3}],
        "citations_retrieved_at": when,
    }
    saved = Publication(slug="same", **values)
    saved.save()
    insert_rows(Publication, ["slug", *values], [("same-2", *values.values())])
    inserted = Publication.objects.get(slug="same-2")
    # auto_now gave each its own clock reading; align them the ORM's way. The
    # citation key is made after the index, which a raw insert leaves to its caller.
    Publication.objects.update(updated_at=when, cite_key="")

    expected = stored(Publication, saved.pk) | {"slug": "same-2"}
    assert stored(Publication, inserted.pk) == expected
    assert inserted.doi == "10.1000/abc.1" and inserted.arxiv_id == "2401.00001"
    assert inserted.citations_retrieved_at == when
    if connection.vendor == "sqlite":
        assert "+00:00" not in expected["citations_retrieved_at"]


def test_insert_rows_can_leave_out_rows_that_break_a_unique_constraint(db):
    SearchTerm.objects.create(word="cache")
    insert_rows(
        SearchTerm, ["word"], [("cache",), ("quantization",)], ignore_conflicts=True
    )
    assert sorted(SearchTerm.objects.values_list("word", flat=True)) == [
        "cache",
        "quantization",
    ]
    with pytest.raises(IntegrityError), transaction.atomic():
        insert_rows(SearchTerm, ["word"], [("cache",)])
