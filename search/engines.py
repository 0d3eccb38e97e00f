"""One search interface, two engines: SQLite FTS5 and PostgreSQL full-text search.

The engine follows the database; callers use `get_engine()` and never ask which.
"""

import difflib
import functools
import operator
from collections.abc import Callable

from django.contrib.postgres.search import (
    SearchHeadline,
    SearchQuery,
    SearchRank,
    SearchVector,
    TrigramSimilarity,
)
from django.db import connection, connections, router
from django.db.models import F, Q, QuerySet, TextField, Value
from django.db.models.expressions import RawSQL
from django.db.models.functions import Concat
from django.utils.html import escape

from core.cache import remember
from core.lib.cjk import unsegment
from search.documents import TEXT_FIELDS
from search.models import SearchTerm
from search.operations import PG_CONFIG, fts_table
from search.query import Query, parse
from search.reasons import explain, once
from search.registry import searchable_for, searchables

# Private-use characters mark matches inside snippets, so that escaping the text
# first and then turning the marks into <mark> never lets document HTML through.
MARK_START, MARK_END = "\ue000", "\ue001"
SNIPPET_WORDS = 24
# Close known words checked, closest first, for one that still finds something.
SUGGESTIONS_TRIED = 5
# Column weights: heading (names or title), topics, body, extra.
WEIGHTS = (10.0, 5.0, 2.0, 1.0)


def highlight(text: str) -> str:
    """Escape a snippet and turn its match marks into <mark> elements; the text
    reads as written, without the separators of its indexed Chinese words."""
    return (
        escape(unsegment(text))
        .replace(MARK_START, "<mark>")
        .replace(MARK_END, "</mark>")
        .replace("\n", " · ")
    )


def _between(items, separator) -> list:
    """The items with `separator` between each two."""
    return [part for item in items for part in (separator, item)][1:]


def _cursor(model):
    """A cursor on the database the router reads this model from (a replica, say)."""
    return connections[router.db_for_read(model)].cursor()


class Engine:
    vendor = ""
    # Names the engine in cache keys, so that engines never share remembered results.
    name = "keyword"

    # What a query finds depends only on the documents, and every write to the
    # directory starts a new data version: rankings, counts and snippets are
    # remembered per version, so paging, refining and repeated searches reuse them.
    def cached_ranked_ids(self, model, query: Query, limit: int) -> list[int]:
        return remember(
            ["ranked", self.name, model._meta.label, query.text, limit],
            lambda: self.ranked_ids(model, query, limit),
        )

    def cached_count(self, model, query: Query) -> int:
        return remember(
            ["count", self.name, model._meta.label, query.text],
            lambda: self.count(model, query),
        )

    def cached_snippets(self, model, ids: list[int], query: Query) -> dict[int, str]:
        return remember(
            ["snippets", self.name, model._meta.label, query.text, ids],
            lambda: self.reasons(model, ids, query),
        )

    def reasons(self, model, ids: list[int], query: Query) -> dict[int, str]:
        """Why each record matched, in words where its kind names its sources;
        otherwise (or when no source holds the words) the engine's snippet, each
        part of it once."""
        sources = searchable_for(model).sources
        explained = {}
        if sources and ids:
            for pk, found in sources(ids).items():
                if text := explain(query, found):
                    explained[pk] = text
        rest = [pk for pk in ids if pk not in explained]
        snippets = {pk: once(s) for pk, s in self.snippets(model, rest, query).items()}
        return {**snippets, **explained}

    def filter(self, queryset: QuerySet, query: Query) -> QuerySet:
        return queryset.filter(self.condition(queryset.model, query))

    def condition(self, model, query: Query) -> Q:
        """The records of `model` that match, as a condition on their ids."""
        raise NotImplementedError

    def snippets(self, model, ids: list[int], query: Query) -> dict[int, str]:
        raise NotImplementedError

    def ranked_ids(self, model, query: Query, limit: int) -> list[int]:
        """The ids of the best `limit` matches, best first."""
        raise NotImplementedError

    def count(self, model, query: Query) -> int:
        """How many records of `model` match, counted in the search index alone."""
        raise NotImplementedError

    def suggest(self, query: Query) -> Query | None:
        """A query with each unknown word replaced by the closest known one."""
        known = set(
            SearchTerm.objects.filter(word__in=query.terms).values_list(
                "word", flat=True
            )
        )
        changed, words = False, []
        for term in query.terms:
            if term in known or len(term) < 4 or not term.isascii():
                words.append(term)
                continue
            replacement = next(
                (word for word in self._closest(term) if self._indexed(word)), None
            )
            changed |= bool(replacement)
            words.append(replacement or term)
        return parse(" ".join(words)) if changed else None

    def _closest(self, term: str) -> list[str]:
        """Known words close to `term`, closest first."""
        raise NotImplementedError

    def _indexed(self, word: str) -> bool:
        # The vocabulary keeps words the documents no longer have (a bio edited):
        # a suggestion must still find something.
        return any(
            self.count(searchable.model, parse(word))
            for searchable in searchables().values()
        )

    def _closest(self, term: str) -> str | None:
        raise NotImplementedError


class SQLiteEngine(Engine):
    vendor = "sqlite"

    @staticmethod
    def match_expression(query: Query) -> str:
        # Terms are \w+ only, so double quotes make each a literal FTS5 string:
        # no operator, column filter or syntax error can come from user input.
        quoted = " ".join(f'"{t}"' for t in query.terms)
        if len(query.terms) == 1:
            return quoted
        # Every word must match; the exact phrase adds to the score.
        return f'"{query.phrase}" OR ({quoted})'

    def condition(self, model, query: Query) -> Q:
        table = fts_table(searchable_for(model).document._meta.db_table)
        return Q(
            pk__in=RawSQL(
                f'SELECT rowid FROM "{table}" WHERE "{table}" MATCH %s',
                [self.match_expression(query)],
            )
        )

    def ranked_ids(self, model, query: Query, limit: int) -> list[int]:
        table = fts_table(searchable_for(model).document._meta.db_table)
        weights = ", ".join(str(w) for w in WEIGHTS)
        with _cursor(model) as cursor:
            cursor.execute(
                f'SELECT rowid FROM "{table}" WHERE "{table}" MATCH %s '
                f'ORDER BY bm25("{table}", {weights}), rowid LIMIT %s',
                [self.match_expression(query), limit],
            )
            return [row[0] for row in cursor.fetchall()]

    def count(self, model, query: Query) -> int:
        table = fts_table(searchable_for(model).document._meta.db_table)
        with _cursor(model) as cursor:
            cursor.execute(
                f'SELECT count(*) FROM "{table}" WHERE "{table}" MATCH %s',
                [self.match_expression(query)],
            )
            return cursor.fetchone()[0]

    def snippets(self, model, ids: list[int], query: Query) -> dict[int, str]:
        if not ids:
            return {}
        table = fts_table(searchable_for(model).document._meta.db_table)
        marks = ", ".join(["%s"] * len(ids))
        with _cursor(model) as cursor:
            cursor.execute(
                f'SELECT rowid, snippet("{table}", -1, %s, %s, %s, {SNIPPET_WORDS}) '
                f'FROM "{table}" WHERE "{table}" MATCH %s AND rowid IN ({marks})',
                [MARK_START, MARK_END, "…", self.match_expression(query), *ids],
            )
            return {row[0]: highlight(row[1]) for row in cursor.fetchall()}

    def _closest(self, term: str) -> list[str]:
        # Candidates share the first letter and about the length; difflib picks one.
        candidates = SearchTerm.objects.filter(
            word__startswith=term[0],
            word__regex=rf"^.{{{len(term) - 2},{len(term) + 2}}}$",
        ).values_list("word", flat=True)[:5000]
        return difflib.get_close_matches(
            term, list(candidates), n=SUGGESTIONS_TRIED, cutoff=0.75
        )


class PostgresEngine(Engine):
    vendor = "postgresql"

    @staticmethod
    def search_query(query: Query) -> SearchQuery:
        terms = functools.reduce(
            operator.and_,
            (
                SearchQuery(t, search_type="plain", config=PG_CONFIG)
                for t in query.terms
            ),
        )
        if len(query.terms) == 1:
            return terms
        return SearchQuery(query.phrase, search_type="phrase", config=PG_CONFIG) | terms

    def condition(self, model, query: Query) -> Q:
        document = searchable_for(model).document
        matching = document.objects.filter(vector=self.search_query(query))
        return Q(pk__in=matching.values("pk"))

    def ranked_ids(self, model, query: Query, limit: int) -> list[int]:
        search = self.search_query(query)
        weights = [w / WEIGHTS[0] for w in reversed(WEIGHTS)]
        rows = (
            searchable_for(model)
            .document.objects.filter(vector=search)
            .annotate(
                rank=SearchRank(
                    F("vector"), search, weights=weights, cover_density=True
                )
            )
            .order_by("-rank", "pk")
            .values_list("pk", flat=True)
        )
        return list(rows[:limit])

    def count(self, model, query: Query) -> int:
        document = searchable_for(model).document
        return document.objects.filter(vector=self.search_query(query)).count()

    def snippets(self, model, ids: list[int], query: Query) -> dict[int, str]:
        if not ids:
            return {}
        document = searchable_for(model).document
        rows = (
            document.objects.filter(pk__in=ids, vector=self.search_query(query))
            .annotate(
                snippet=SearchHeadline(
                    Concat(
                        *_between(TEXT_FIELDS, Value("\n")), output_field=TextField()
                    ),
                    self.search_query(query),
                    config=PG_CONFIG,
                    start_sel=MARK_START,
                    stop_sel=MARK_END,
                    max_words=SNIPPET_WORDS,
                    min_words=8,
                    max_fragments=2,
                    fragment_delimiter=" … ",
                )
            )
            .values_list("pk", "snippet")
        )
        return {pk: highlight(text) for pk, text in rows}

    def _closest(self, term: str) -> list[str]:
        return list(
            SearchTerm.objects.filter(word__trigram_similar=term)
            .annotate(similarity=TrigramSimilarity("word", term))
            .order_by("-similarity", "word")
            .values_list("word", flat=True)[:SUGGESTIONS_TRIED]
        )

    @staticmethod
    def vector() -> SearchVector:
        return functools.reduce(
            operator.add,
            (
                SearchVector(field, weight=weight, config=PG_CONFIG)
                for field, weight in zip(TEXT_FIELDS, "ABCD", strict=True)
            ),
        )


@functools.cache
def _engine_for(vendor: str) -> Engine:
    if vendor == "postgresql":
        return PostgresEngine()
    if vendor == "sqlite":
        return SQLiteEngine()
    raise NotImplementedError(f"no search engine for {vendor}")


# Wrappers registered by other parts of search (search by meaning), applied in
# order to the database's engine; each returns the engine unchanged when it is off.
_wrappers: list[Callable[[Engine], Engine]] = []


def wrap_engines(wrapper: Callable[[Engine], Engine]) -> None:
    if wrapper not in _wrappers:
        _wrappers.append(wrapper)


def get_engine() -> Engine:
    engine = _engine_for(connection.vendor)
    for wrapper in _wrappers:
        engine = wrapper(engine)
    return engine
