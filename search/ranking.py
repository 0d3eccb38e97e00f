"""Relevance order that stays cheap when a query matches most of a large directory."""

from django.db.models import QuerySet

from core.cache import remember

# Rank at most this many candidates; beyond them results follow the fallback order.
RANKED_CANDIDATES = 1000


class RankedResults:
    """A filtered queryset in relevance order, sliceable like one.

    The engine ranks its top candidates in one query; those that pass the other
    filters come first, in rank order, and the rest follow in the fallback order.
    Paginators need only `count()` and slicing.
    """

    ordered = True

    def __init__(
        self,
        queryset: QuerySet,
        ranked_ids: list[int],
        fallback: tuple[str, ...],
        *,
        exact: bool = False,
        count: int | None = None,
        rows: QuerySet | None = None,
        key: list | None = None,
    ):
        """`exact`: every ranked id is known to pass the filters (and `count` is
        the number of results), so neither needs a query of its own. `rows` loads
        ranked records by id (default: `queryset`, filters and all). `key` names
        the filters; with it, which ranked ids pass them and which records follow
        are remembered for the data version (the count is remembered by the
        paginator, `core.cache.CountedPaginator`)."""
        self.queryset = queryset
        self.key = key
        self.rows = queryset if rows is None else rows
        self.model = queryset.model
        self.ranked_ids = ranked_ids
        self.fallback = fallback
        self._count = count
        self._present: list[int] | None = list(ranked_ids) if exact else None

    def count(self) -> int:
        if self._count is None:
            self._count = self.queryset.count()
        return self._count

    def __len__(self) -> int:
        return self.count()

    def _ranked_present(self) -> list[int]:
        if self._present is None:
            self._present = self._remember("present", self._passing)
        return self._present

    def _passing(self) -> list[int]:
        present = set(
            self.queryset.filter(pk__in=self.ranked_ids)
            .order_by()
            .values_list("pk", flat=True)
        )
        return [pk for pk in self.ranked_ids if pk in present]

    def _remember(self, what: str, compute):
        if self.key is None:
            return compute()
        return remember(["ranked", what, self.model._meta.label, *self.key], compute)

    def __getitem__(self, index):
        if isinstance(index, int):
            return self[index : index + 1][0]
        start, stop = index.start or 0, index.stop
        ranked = self._ranked_present()
        ids = ranked[start:stop]
        rest = None
        if stop is None or stop > len(ranked):
            # Past the ranked candidates: the other results, in fallback order.
            others = self.queryset.exclude(pk__in=ranked).order_by(*self.fallback)
            offset = max(0, start - len(ranked))
            end = None if stop is None else stop - len(ranked)
            if self.key is None:
                rest = others[offset:end]
            else:
                ids = ids + self._remember(
                    f"others {offset}:{end}",
                    lambda: list(others.values_list("pk", flat=True)[offset:end]),
                )
        rows = self.rows.filter(pk__in=ids).in_bulk() if ids else {}
        result = [rows[pk] for pk in ids if pk in rows]
        if rest is not None:
            result += list(rest)
        return result

    def __iter__(self):
        return iter(self[:])
