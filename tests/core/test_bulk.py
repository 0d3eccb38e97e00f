import gc

import pytest
from django.db import connection

from core.bulk import large_cache, without_cycle_collection
from publications.services import BibtexImportError, publication_import_bibtex


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
