"""PostgreSQL can answer the search, facet and suggestion queries from indexes.

The test data is small, so the planner would rightly scan whole tables; with
sequential scans priced out (`enable_seqscan = off`), a plan that still reads a
table sequentially means no index could serve it.
"""

import re

import pytest
from django.db import connection
from django.http import QueryDict

from events.models import EventSearchDocument
from people.filters import PersonFilter
from people.models import Person, PersonSearchDocument
from publications.filters import PublicationFilter
from publications.models import Publication, PublicationSearchDocument
from search.engines import get_engine
from search.models import SearchTerm
from search.query import parse
from tests import factories

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def _postgres_without_seqscan():
    if connection.vendor != "postgresql":
        pytest.skip("query plans are checked on PostgreSQL")
    with connection.cursor() as cursor:
        cursor.execute("SET LOCAL enable_seqscan = off")


@pytest.fixture
def lab():
    kv = factories.topic(name="KV cache quantization", slug="kv-cache-quantization")
    venue = factories.venue(short_name="MLSys", slug="mlsys")
    member = factories.person(given_name="Zhongzhu", family_name="Zhou", slug="zz")
    member.topics.add(kv)
    for year in (2023, 2024, 2025):
        paper = factories.publication(
            title=f"Quantized KV caches {year}",
            year=year,
            venue=venue,
            authors=[member, "A. Outsider"],
        )
        paper.topics.add(kv)


def sequential_scans(plan: str) -> list[str]:
    return re.findall(r"Seq Scan on (\w+)", plan)


def test_full_text_search_uses_the_gin_index(lab):
    query = get_engine().search_query(parse("quantized caches"))
    plan = PublicationSearchDocument.objects.filter(vector=query).explain()
    assert "publications_publicationsearchdocument_vector_gin" in plan, plan
    assert sequential_scans(plan) == []


@pytest.mark.parametrize(
    ("filterset", "model", "params", "facets"),
    [
        (
            PublicationFilter,
            Publication,
            "year=2024&venue=mlsys",
            ["year", "venue", "topic", "status", "author"],
        ),
        (
            PublicationFilter,
            Publication,
            "q=quantized&topic=kv-cache-quantization",
            ["year", "venue", "topic"],
        ),
        (PersonFilter, Person, "q=quantization&role=phd_student", ["topic", "role"]),
    ],
)
def test_facet_counts_read_indexes_only(lab, filterset, model, params, facets):
    data = QueryDict(params)
    union = filterset(data, queryset=model.objects.all()).facet_query(facets)
    plan = union.explain()
    assert sequential_scans(plan) == [], plan
    assert "Index" in plan


def test_did_you_mean_uses_the_trigram_index(lab):
    plan = SearchTerm.objects.filter(word__trigram_similar="quantisation").explain()
    assert "directory_searchterm_word_trgm" in plan, plan
    assert sequential_scans(plan) == []


@pytest.mark.parametrize(
    "document", [PersonSearchDocument, PublicationSearchDocument, EventSearchDocument]
)
def test_search_vectors_are_kept_in_the_row(document):
    # Every match reads each candidate's vector: out of the row (TOAST), a member's
    # vector cost a look-up of its own (search.operations).
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT attstorage FROM pg_attribute "
            "WHERE attrelid = %s::regclass AND attname = 'vector'",
            [document._meta.db_table],
        )
        assert cursor.fetchone() == ("m",)


def test_newest_first_with_undated_works_last_reads_its_index(lab):
    factories.publication(title="Undated", year=None)
    plan = Publication.objects.newest_first().values("pk")[:25].explain()
    assert "publication_newest" in plan, plan
    assert "Sort" not in plan, plan
