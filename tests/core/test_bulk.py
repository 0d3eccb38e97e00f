import gc

import pytest
from django.db import IntegrityError, connection, transaction

from core.bulk import Instances, insert_rows, large_cache, without_cycle_collection
from core.models import SearchTerm
from publications.models import Publication
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


def test_instances_are_built_as_keywords_build_them():
    build = Instances(Publication)
    fast = build(title="T", year=2020, venue_id=None, bibtex="@misc{t}")
    slow = Publication(title="T", year=2020, venue_id=None, bibtex="@misc{t}")
    names = [f.attname for f in Publication._meta.concrete_fields]
    assert [getattr(fast, n) for n in names] == [getattr(slow, n) for n in names]
    assert fast._state.adding and fast.pk is None


def test_instances_call_a_callable_default_for_each_instance():
    build = Instances(Publication)
    first, second = build(title="A"), build(title="B")
    assert first.counts_by_year == [] and first.orcid_put_codes == []
    first.counts_by_year.append({"year": 2020, "cited_by_count": 1})
    assert second.counts_by_year == []


def test_instances_refuse_a_name_that_is_not_an_attribute():
    with pytest.raises(TypeError, match="no field 'venue'"):
        Instances(Publication)(venue=None)


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
