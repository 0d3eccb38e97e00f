"""Facet counting shared by every faceted page and API endpoint.

A facet's counts are taken with every other filter applied but not its own, so each
value shows how many results it would match alongside the others (disjunctive
faceting); within a facet, selected values are ORed.
"""

from collections.abc import Callable
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any
from urllib.parse import urlencode

import django_filters
from django import forms
from django.db.models import CharField, Count, QuerySet, Value
from django.db.models.functions import Cast
from django.http import QueryDict
from django.utils.module_loading import autodiscover_modules
from drf_spectacular.utils import extend_schema_field

from directory.cache import remember_each
from directory.models import MAX_YEAR, MIN_YEAR, Topic
from directory.search.filters import rank_by
from directory.search.ranking import RankedResults

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
        label_path: str | None = None,
        choices: list[tuple[Any, str]] | None = None,
        distinct: bool = False,
        order: str = "count",
        annotate: Callable[[QuerySet], QuerySet] | None = None,
    ) -> None:
        self.label = label
        self.path = path
        self.label_path = label_path
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
        value_path, label_path = self.path, self.label_path or self.path
        counter = Count("pk", distinct=True) if self.distinct else Count("*")
        related = related_rows(queryset.model, self.path) if self.distinct else None
        if related and not self.annotate:
            # Counted from the related rows of the records that pass the filters
            # (a semi-join), rather than by joining every record to all its related
            # rows first, so the planner can start from the few that pass: people's
            # venue facet under a search, a topic and a role, on PostgreSQL, 250 ->
            # 11 ms (with the filters' subqueries from `having`).
            model, key, first = related
            queryset = model._default_manager.filter(
                **{f"{key}__in": queryset.values("pk")}
            ).order_by()
            value_path = _replace_first(value_path, first)
            label_path = _replace_first(label_path, first)
            counter = Count(key, distinct=True)
        return queryset.values(
            facet=Value(name, output_field=CharField()),
            value=Cast(value_path, CharField()),
            label=Cast(label_path, CharField()),
        ).annotate(n=counter)

    def options(self, rows: list[dict]) -> list[tuple[str, str, int]]:
        """(value, label, count) from the grouped rows, in display order."""
        result = []
        for row in rows:
            value = row["value"]
            if value is None:  # records without a value for this facet
                continue
            if self.label_path:
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
    back to `model`: PostgreSQL then plans the outer query from the few matches
    (a topic filter within a search's venue facet: 118 -> 11 ms).
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


class YearsField(forms.MultipleChoiceField):
    """Years as repeated parameters (?year=2024&year=2025), each within a sane range."""

    def to_python(self, value) -> list[int]:
        values = super().to_python(value)
        years = []
        for item in values:
            # The value goes in `params`, never in the message: DRF formats every
            # message with %, and "%00" from a query would break that.
            try:
                year = int(item)
            except (TypeError, ValueError):
                raise forms.ValidationError(
                    "“%(value)s” is not a year.", code="invalid", params={"value": item}
                ) from None
            if not MIN_YEAR <= year <= MAX_YEAR:
                raise forms.ValidationError(
                    "%(value)s is outside %(min)s–%(max)s.",
                    code="out_of_range",
                    params={"value": year, "min": MIN_YEAR, "max": MAX_YEAR},
                )
            years.append(year)
        return years

    def validate(self, value) -> None:
        if self.required and not value:
            raise forms.ValidationError(
                self.error_messages["required"], code="required"
            )


@extend_schema_field(
    {
        "type": "array",
        "items": {"type": "integer", "minimum": MIN_YEAR, "maximum": MAX_YEAR},
    }
)
class YearsFilter(django_filters.MultipleChoiceFilter):
    field_class = YearsField

    def __init__(self, *args, **kwargs) -> None:
        kwargs.setdefault("lookup_expr", "in")
        super().__init__(*args, **kwargs)

    def filter(self, qs, value):
        if not value:
            return qs
        return qs.filter(**{f"{self.field_name}__in": value})


def chosen(records: QuerySet | list | None) -> bool:
    """Whether a multiple-choice filter's cleaned value selects anything."""
    if not isinstance(records, QuerySet):
        return bool(records)
    # No choice cleans to `queryset.none()`, which `bool()` would compile as SQL
    # (only to find it empty); a choice was already fetched when it was cleaned.
    return not records.query.is_empty() and bool(records)


@extend_schema_field({"type": "array", "items": {"type": "string", "format": "slug"}})
class TopicFilter(django_filters.ModelMultipleChoiceFilter):
    """Topics by slug; a topic includes everything below it."""

    def __init__(self, *args, relation: str = "topics", **kwargs) -> None:
        kwargs.setdefault("queryset", Topic.objects.all())
        kwargs.setdefault("to_field_name", "slug")
        kwargs.setdefault("label", "Topic")
        self.relation = relation
        super().__init__(*args, **kwargs)

    def filter(self, qs, value):
        if not chosen(value):
            return qs
        subtree = Topic.objects.subtree_ids([t.slug for t in value])
        return qs.filter(pk__in=having(qs.model, f"{self.relation}__in", subtree))


@extend_schema_field({"type": "array", "items": {"type": "string", "format": "slug"}})
class RelatedFilter(django_filters.ModelMultipleChoiceFilter):
    """Records related to any of the given slugs along `path` (values are ORed)."""

    def __init__(self, model, path: str, **kwargs) -> None:
        kwargs.setdefault("queryset", model.objects.all())
        kwargs.setdefault("to_field_name", "slug")
        self.path = path
        super().__init__(**kwargs)

    def filter(self, qs, value):
        if not chosen(value):
            return qs
        # A subquery rather than a join, so no record is repeated.
        return qs.filter(pk__in=having(qs.model, f"{self.path}__in", value))


class SortFilter(django_filters.ChoiceFilter):
    """The `sort` parameter: validated here, applied by FilterSet.order_results."""

    def __init__(self, choices, **kwargs) -> None:
        super().__init__(choices=choices, empty_label=None, label="Sort", **kwargs)

    def filter(self, qs, value):
        return qs


FACETED_FILTERSETS: list[type["FacetedFilterSet"]] = []


class FacetedFilterSet(django_filters.FilterSet):
    """A FilterSet whose facets are declared beside its filters, by the same names."""

    facets: dict[str, Facet] = {}
    # Filters that order rather than narrow; facets ignore them.
    ordering_filters: tuple[str, ...] = ("sort",)

    def __init_subclass__(cls, **kwargs) -> None:
        super().__init_subclass__(**kwargs)
        if cls.facets:
            FACETED_FILTERSETS.append(cls)

    def get_form_class(self) -> type:
        # Every filter's form field is static (no choices or querysets depend on
        # the request), so the form class is built once per FilterSet class.
        form_class = type(self).__dict__.get("_form_class")
        if form_class is None:
            form_class = super().get_form_class()
            type(self)._form_class = form_class
        return form_class

    def filter_queryset(
        self, queryset: QuerySet, *, without: str | None = None
    ) -> QuerySet:
        for name, value in self.form.cleaned_data.items():
            if name == without or name in self.ordering_filters:
                continue
            queryset = self.filters[name].filter(queryset, value)
        return queryset

    @property
    def qs(self) -> QuerySet:
        if not hasattr(self, "_qs"):
            queryset = self.queryset.all()
            if self.is_bound:
                self.errors  # noqa: B018 - validate, so cleaned_data holds the valid values
                queryset = self.filter_queryset(queryset)
            self._qs = self.order_results(queryset)
        return self._qs

    def order_results(self, queryset: QuerySet) -> QuerySet:
        return queryset

    def ranked(self, queryset: QuerySet, *then: str) -> QuerySet | RankedResults:
        """`queryset` in relevance order to the text query, then in `then` order."""
        return rank_by(
            queryset,
            self.form.cleaned_data["q"],
            *then,
            text_only=self.text_only(),
            rows=self.queryset,
            key=self.results_key(),
        )

    def results_key(self) -> list:
        """What the results depend on besides the data: a key to remember them by."""
        # The base queryset's own conditions too: a page and an API endpoint may
        # share a FilterSet over different records.
        return [
            type(self).__name__,
            str(self.queryset.query.where),
            self._cache_params(),
        ]

    def text_only(self) -> bool:
        """Whether the text query is the only filter narrowing the results."""
        used = [k for k, v in self._cache_params() if v not in ("", [], [""])]
        return used == ["q"]

    def _cache_params(self) -> list:
        """The narrowing parameters only: paging and ordering do not change counts."""
        if not self.is_bound:
            return []
        skip = {
            "page",
            "page_size",
            "format",
            "facets",
            "ordering",
            *self.ordering_filters,
        }
        data = self.data
        return sorted(
            (k, sorted(data.getlist(k)) if hasattr(data, "getlist") else data[k])
            for k in data
            if k not in skip
        )

    def facet_query(self, names: list[str]) -> QuerySet:
        """One grouped count per facet, each with every filter but its own."""
        if self.is_bound:
            self.errors  # noqa: B018 - validate, so cleaned_data holds the valid values
        parts = []
        for name in names:
            base = self.queryset.all()
            if self.is_bound:
                base = self.filter_queryset(base, without=name)
            parts.append(self.facets[name].grouped(base, name))
        return parts[0].union(*parts[1:], all=True)

    def facet_results(
        self, names: list[str] | None = None, limit: int = FACET_LIMIT
    ) -> list[FacetResult]:
        """Every facet's counts in one query (a UNION ALL of grouped counts)."""
        if self.is_bound:
            self.errors  # noqa: B018
        wanted = [n for n in self.facets if names is None or n in names]
        params = (
            self.data if isinstance(self.data, QueryDict) else QueryDict(mutable=True)
        )
        selections = {
            name: {str(v) for v in params.getlist(name)}
            if params and name not in self.form.errors
            else set()
            for name in wanted
        }

        def compute(names: list[str]) -> dict[str, list[tuple[str, str, int]]]:
            rows: dict[str, list[dict]] = {name: [] for name in names}
            for row in self.facet_query(names):
                rows[row["facet"]].append(row)
            # The most frequent values, and every selected one, whatever its rank:
            # only these are kept (and cached), however many values a facet has.
            kept = {}
            for name in names:
                options = self.facets[name].options(rows[name])
                kept[name] = options[:limit] + [
                    o for o in options[limit:] if o[0] in selections[name]
                ]
            return kept

        # Each facet is remembered on its own, so that a page and an API request
        # asking for some of its facets share their counts (when they filter the
        # same records: the base queryset's conditions are part of the key).
        key = [type(self).__name__, str(self.queryset.query.where), limit]
        params_key = self._cache_params()
        kept = remember_each(
            {name: [*key, name, params_key] for name in wanted}, compute
        )
        results = []
        for name in wanted:
            facet = self.facets[name]
            selected = selections[name]
            result = FacetResult(name=name, label=facet.label)
            links = FacetLinks(params, name)
            for value, label, count in kept[name]:
                result.options.append(
                    FacetOption(value, label, count, value in selected, links)
                )
            shown = {o.value for o in result.options}
            for value in sorted(selected - shown):
                # A selection that now matches nothing still shows, to be removed.
                result.options.append(FacetOption(value, value, 0, True, links))
            result.options.sort(key=lambda o: not o.selected)
            results.append(result)
        return results


def warm_default_facets() -> None:
    """Count the facets of every unfiltered list page into the cache (the same keys
    the pages use), so that the first visit after a write finds them."""
    autodiscover_modules("filters")  # every app's FilterSets, registered on import
    for filterset in FACETED_FILTERSETS:
        model = filterset._meta.model
        filterset(QueryDict(""), queryset=model._default_manager.all()).facet_results()
