"""The engine of search by meaning: the database's keyword engine joined by the
records nearest in meaning (reciprocal rank fusion), and for kinds that name
their passages (members), ranking by evidence (search.evidence)."""

import functools

from django.db.models import Q
from django.utils.html import escape

from core.cache import remember
from search import evidence, semantic
from search.engines import Engine
from search.query import Query
from search.registry import searchable_for

# Reciprocal rank fusion: score = Σ weight / (RRF_K + rank).
RRF_K = 60
KEYWORD_WEIGHT = 1.0
MEANING_WEIGHT = 1.0
# Passages named when a record was found by meaning alone.
SHOWN_PASSAGES = 2


def fused(*rankings: tuple[float, list[int]]) -> list[int]:
    """Reciprocal rank fusion of weighted rankings (ties keep the first order)."""
    scores: dict[int, float] = {}
    for weight, ranking in rankings:
        for rank, pk in enumerate(ranking, 1):
            scores[pk] = scores.get(pk, 0.0) + weight / (RRF_K + rank)
    return sorted(scores, key=lambda pk: -scores[pk])


class HybridEngine(Engine):
    """The database's keyword engine, joined by the records nearest in meaning."""

    name = "hybrid"

    def __init__(self, keyword: Engine):
        self.keyword = keyword
        self.vendor = keyword.vendor

    def _evidence(self, model, query: Query) -> evidence.Ranking | None:
        kind = searchable_for(model).kind
        if not evidence.registered(kind):
            return None
        return remember(
            ["evidence", kind, query.text],
            lambda: evidence.ranked(
                kind, query, self.keyword.cached_ranked_ids(model, query, 1000)
            ),
        )

    def _near(self, model, query: Query) -> list[int]:
        """The records found by meaning (for people: with any passage near)."""
        ranking = self._evidence(model, query)
        if ranking is None:
            return semantic.nearest(model, query.text)
        return ranking.near

    def condition(self, model, query: Query) -> Q:
        return self.keyword.condition(model, query) | Q(pk__in=self._near(model, query))

    def ranked_ids(self, model, query: Query, limit: int) -> list[int]:
        ranking = self._evidence(model, query)
        if ranking is not None:
            return ranking.owners[:limit]
        return fused(
            (KEYWORD_WEIGHT, self.keyword.ranked_ids(model, query, limit)),
            (MEANING_WEIGHT, semantic.nearest(model, query.text)),
        )[:limit]

    def count(self, model, query: Query) -> int:
        near = self._near(model, query)
        also_words = model._default_manager.filter(
            Q(pk__in=near) & self.keyword.condition(model, query)
        ).count()
        return self.keyword.count(model, query) + len(near) - also_words

    def reasons(self, model, ids: list[int], query: Query) -> dict[int, str]:
        """Why each matched in words; for a member found by meaning alone, the
        passages that carried the score."""
        explained = super().reasons(model, ids, query)
        ranking = self._evidence(model, query)
        if ranking is None:
            return explained
        near = set(ranking.near)
        unexplained = [
            pk for pk in ids if pk in near and not self._by_words(explained.get(pk))
        ]
        carried = {pk: ranking.carried.get(pk, [])[:SHOWN_PASSAGES] for pk in ids}
        passages = evidence.carried_passages(
            p for pk in unexplained for p in carried[pk]
        )
        for pk in unexplained:
            named = [passages[p] for p in carried[pk] if p in passages]
            if named:
                explained[pk] = "close in meaning: " + " · ".join(
                    f"{escape(label)}: {escape(shown)}" for label, shown in named
                )
        return explained

    @staticmethod
    def _by_words(text: str | None) -> bool:
        return bool(text) and "<mark>" in text

    def snippets(self, model, ids: list[int], query: Query) -> dict[int, str]:
        return self.keyword.snippets(model, ids, query)

    def suggest(self, query: Query) -> Query | None:
        return self.keyword.suggest(query)


@functools.cache
def _hybrid(keyword: Engine) -> HybridEngine:
    return HybridEngine(keyword)


def wrap(engine: Engine) -> Engine:
    """The hybrid engine over `engine` when search by meaning is on."""
    return _hybrid(engine) if semantic.enabled() else engine
