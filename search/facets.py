"""Facet counting shared by every faceted page and API endpoint (see
`search.filters.FacetedFilterSet`, which declares facets beside its filters).

A facet's counts are taken with every other filter applied but not its own, so each
value shows how many results it would match alongside the others (disjunctive
faceting); within a facet, selected values are ORed.
"""

from collections.abc import Callable
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any
from urllib.parse import urlencode

from django.db.models import CharField, Count, QuerySet, Value
from django.db.models.functions import Cast, Coalesce, NullIf
from django.http import QueryDict

# At most this many values per facet (most frequent first), plus any selected one.
FACET_LIMIT = 100


@dataclass
class FacetOption:
    value: str
    label: str
    count: int
    selected: bool = False
    links: "FacetLinks | None" = None

    @cached_property
    def url(self) -> str:
        """The link that switches this value (built only when a page shows it)."""
        return self.links.toggle(self.value) if self.links else ""


@dataclass
class FacetResult:
    name: str
    label: str
    options: list[FacetOption] = field(default_factory=list)

    @property
    def selected(self) -> list[FacetOption]:
        return [o for o in self.options if o.selected]


class Facet:
    """Counts of the values found along `path` (a lookup from the filtered model)."""

    def __init__(
        self,
        label: str,
        path: str,
        *,
        label_path: str | tuple[str, ...] | None = None,
        choices: list[tuple[Any, str]] | None = None,
        distinct: bool = False,
        order: str = "count",
        annotate: Callable[[QuerySet], QuerySet] | None = None,
    ) -> None:
        self.label = label
        self.path = path
        # Paths to a value's label, the first non-empty one shown (a venue's short
        # name, else its name); the value itself when none gives one.
        self.label_paths = (
            ()
            if label_path is None
            else (label_path,)
            if isinstance(label_path, str)
            else tuple(label_path)
        )
        self.choices = dict(choices) if choices else None
        # Paths through a many-valued relation must count each record once.
        self.distinct = distinct
        self.order = order
        self.annotate = annotate

    def grouped(self, queryset: QuerySet, name: str) -> QuerySet:
        """One grouped count of this facet's values, in columns every facet shares."""
        queryset = queryset.order_by()
        if self.annotate:
            queryset = self.annotate(queryset)
        value_path, label_paths = self.path, self.label_paths or (self.path,)
        counter = Count("pk", distinct=True) if self.distinct else Count("*")
        related = related_rows(queryset.model, self.path) if self.distinct else None
        if related and not self.annotate:
            # Counted from the related rows of the records that pass the filters
            # (a semi-join), rather than by joining every record to all its related
            # rows first, so the planner can start from the few that pass (with
            # the filters' subqueries from `having`).
            model, key, first = related
            queryset = model._default_manager.filter(
                **{f"{key}__in": queryset.values("pk")}
            ).order_by()
            value_path = _replace_first(value_path, first)
            label_paths = tuple(_replace_first(p, first) for p in label_paths)
            counter = Count(key, distinct=True)
        return queryset.values(
            facet=Value(name, output_field=CharField()),
            value=Cast(value_path, CharField()),
            label=_first_label(label_paths),
        ).annotate(n=counter)

    def labels(self, queryset: QuerySet, values: set[str]) -> dict[str, str]:
        """The labels of these values (for a selected value that no result has any
        more): read from the records the path leads to, whatever links to them."""
        if self.choices is not None:
            return {v: str(self.choices[v]) for v in values if v in self.choices}
        prefix, _, value_field = self.path.rpartition("__")
        fields = [path.rpartition("__") for path in self.label_paths]
        if not values or not fields or any(p != prefix for p, _, _ in fields):
            return {}
        model = _model_at(queryset.model, prefix)
        rows = model._default_manager.filter(**{f"{value_field}__in": values})
        labels = rows.values_list(
            Cast(value_field, CharField()), _first_label(tuple(f for *_, f in fields))
        )
        return {value: label for value, label in labels if label}

    def options(self, rows: list[dict]) -> list[tuple[str, str, int]]:
        """(value, label, count) from the grouped rows, in display order."""
        result = []
        for row in rows:
            value = row["value"]
            if value is None:  # records without a value for this facet
                continue
            if self.label_paths:
                label = row["label"] or value
            elif self.choices is not None:
                label = str(self.choices.get(value, value))
            else:
                label = value
            result.append((value, label, row["n"]))
        if self.order == "value_desc":
            result.sort(key=lambda r: r[0], reverse=True)
        elif self.order == "value":
            result.sort(key=lambda r: r[0])
        else:
            result.sort(key=lambda r: (-r[2], r[1].lower()))
        return result

    def count(self, queryset: QuerySet, name: str = "") -> list[tuple[str, str, int]]:
        return self.options(list(self.grouped(queryset, name)))


def _first_label(paths: tuple[str, ...]):
    """The first of these paths' values that is not empty, as text."""
    labels = [NullIf(Cast(path, CharField()), Value("")) for path in paths]
    return labels[0] if len(labels) == 1 else Coalesce(*labels)


def _model_at(model, path: str):
    """The model a path of relations (`topics__ancestor_links__ancestor`) ends at."""
    for step in path.split("__") if path else ():
        model = model._meta.get_field(step).related_model
    return model


def related_rows(model, path: str) -> tuple[Any, str, str] | None:
    """Where a path through a many-valued relation starts: the model holding one row
    per related record, its key back to `model`, and the name the path's first step
    takes there (None for a path along single-valued fields)."""
    field = model._meta.get_field(path.split("__", 1)[0])
    if field.many_to_many and not field.auto_created:  # a ManyToManyField
        through = field.remote_field.through
        return through, field.m2m_field_name(), field.m2m_reverse_field_name()
    if field.one_to_many:  # the reverse of a ForeignKey
        return field.related_model, field.field.name, ""
    return None


def having(model, lookup: str, value) -> QuerySet:
    """The pks of `model`'s records matching `lookup` (each once), as a subquery.

    Through a many-valued relation the related rows alone answer it, without a join
    back to `model`: PostgreSQL then plans the outer query from the few matches.
    """
    related = related_rows(model, lookup)
    if related is None:
        return model._default_manager.filter(**{lookup: value}).values("pk")
    rows, key, first = related
    condition = {_replace_first(lookup, first): value}
    return rows._default_manager.filter(**condition).order_by().values(key)


def _replace_first(path: str, first: str) -> str:
    """`path` with its first step replaced by `first` (or dropped when it is empty)."""
    rest = path.split("__", 1)[1]
    return f"{first}__{rest}" if first else rest


def topic_facet(relation: str = "topics") -> Facet:
    return Facet(
        "Topic",
        f"{relation}__ancestor_links__ancestor__slug",
        label_path=f"{relation}__ancestor_links__ancestor__name",
        distinct=True,
    )


class FacetLinks:
    """Query strings that switch one value of one facet on or off (back to page 1).

    The other parameters are encoded once per facet, not once per value.
    """

    def __init__(self, params: QueryDict, name: str) -> None:
        self.name = name
        self.values = params.getlist(name)
        self.others = [
            (k, v) for k in params if k not in (name, "page") for v in params.getlist(k)
        ]

    def toggle(self, value: str) -> str:
        values = [v for v in self.values if v != value]
        if len(values) == len(self.values):
            values.append(value)
        encoded = urlencode(self.others + [(self.name, v) for v in values])
        return f"?{encoded}" if encoded else "?"
