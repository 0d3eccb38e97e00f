"""The filters that searchable FilterSets share, and the faceted FilterSet.

`q` is full-text search; topics and related records are multi-select facets; a
FacetedFilterSet counts its facets with the same filters (see search.facets).
"""

from collections.abc import Callable
from typing import Any

import django_filters
from django import forms
from django.db.models import QuerySet
from django.http import QueryDict
from django.utils.module_loading import autodiscover_modules
from drf_spectacular.utils import extend_schema_field

from core.cache import remember_each
from core.models import MAX_YEAR, MIN_YEAR, Topic
from search import facet_counts
from search.engines import get_engine
from search.facets import (
    FACET_LIMIT,
    Facet,
    FacetLinks,
    FacetOption,
    FacetResult,
    having,
)
from search.query import MAX_QUERY_CHARS, parse
from search.ranking import RANKED_CANDIDATES, RankedResults


def as_query_dict(data: Any) -> QueryDict:
    """A FilterSet's data as a QueryDict (tests and callers may pass a dict)."""
    if isinstance(data, QueryDict):
        return data
    params = QueryDict(mutable=True)
    for key, value in (data or {}).items():
        params.setlist(
            key, [str(v) for v in value] if isinstance(value, list) else [str(value)]
        )
    return params


class SearchFilter(django_filters.CharFilter):
    """Full-text search; the query is normalised so engine syntax is never passed on."""

    def __init__(self, *args, **kwargs) -> None:
        kwargs.setdefault("label", "Search")
        super().__init__(*args, **kwargs)

    def filter(self, qs: QuerySet, value: str) -> QuerySet:
        query = parse(value[:MAX_QUERY_CHARS] if value else "")
        if not query:
            return qs
        return get_engine().filter(qs, query)


def rank_by(
    queryset: QuerySet,
    raw: str,
    *then: str,
    text_only: bool = False,
    rows: QuerySet | None = None,
    key: list | None = None,
) -> QuerySet | RankedResults:
    """Order by relevance to the query; past the ranked candidates, by `then`.

    The ranking of a query does not depend on the other filters (the engine
    caches it per data version). With `text_only` (no other filter narrows
    `queryset`) every match is a result, so the index alone gives the count and
    the order. `rows` (unfiltered, with its related records) loads the records of
    a page by id, without repeating the filters. `key` names the filters, so
    that their count and the ranked ids that pass them are remembered.
    """
    query = parse(raw)
    if not query:
        return queryset.order_by(*then)
    model, engine = queryset.model, get_engine()
    ranked = engine.cached_ranked_ids(model, query, RANKED_CANDIDATES)
    if text_only:
        return RankedResults(
            queryset,
            ranked,
            then,
            exact=True,
            count=engine.cached_count(model, query),
            rows=rows,
        )
    return RankedResults(queryset, ranked, then, rows=rows, key=key)


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


# The schema of one value: drf-spectacular makes a multiple-choice filter an array
# of them (annotating the array itself gave arrays of arrays).
@extend_schema_field({"type": "integer", "minimum": MIN_YEAR, "maximum": MAX_YEAR})
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


@extend_schema_field({"type": "string", "format": "slug"})
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


@extend_schema_field({"type": "string", "format": "slug"})
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


class IdentifierField(forms.CharField):
    """An identifier in any spelling `normalise` accepts, cleaned to its stored form."""

    def __init__(self, *args, normalise: Callable[[str], str], **kwargs) -> None:
        self.normalise = normalise
        super().__init__(*args, **kwargs)

    def to_python(self, value) -> str:
        value = super().to_python(value)
        if not value:
            return value
        try:
            return self.normalise(value)
        except ValueError as error:
            # In `params`, as YearsField does: DRF formats messages with %.
            raise forms.ValidationError(
                "%(reason)s", code="invalid", params={"reason": str(error)}
            ) from None


class IdentifierFilter(django_filters.CharFilter):
    """Records whose identifier (an ORCID iD, a DOI) is the one given, however
    it is spelt (a URL, a prefix, other case)."""

    field_class = IdentifierField

    def __init__(self, normalise: Callable[[str], str], **kwargs) -> None:
        kwargs.setdefault("lookup_expr", "exact")
        super().__init__(normalise=normalise, max_length=200, **kwargs)


class SortFilter(django_filters.ChoiceFilter):
    """The `sort` parameter: validated here, applied by FilterSet.order_results."""

    def __init__(self, choices, **kwargs) -> None:
        super().__init__(choices=choices, empty_label=None, label="Sort", **kwargs)

    def filter(self, qs, value):
        return qs


def _unset(value: Any) -> bool:
    """Whether a cleaned filter value leaves the records as they are."""
    if isinstance(value, QuerySet):
        return not value.exists()
    return value is None or value == "" or value == [] or value == ()


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
            facet_counts.register(cls)

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

    # The orders `sort` offers besides relevance, by name; `default_order` without
    # a text query, and `relevance_then` for the results past the ranked ones.
    orders: dict[str, tuple[str, ...]] = {}
    default_order: tuple[str, ...] = ("pk",)
    relevance_then: tuple[str, ...] = ("pk",)

    def order_results(self, queryset: QuerySet) -> QuerySet:
        data = getattr(self.form, "cleaned_data", {}) if self.is_bound else {}
        order = data.get("sort") or "relevance"
        queryset = self.with_order_columns(queryset)
        if order == "relevance" and data.get("q"):
            return self.ranked(queryset, *self.relevance_then)
        return queryset.order_by(*self.orders.get(order, self.default_order))

    def with_order_columns(self, queryset: QuerySet) -> QuerySet:
        """The queryset with whatever the orders sort by that is not a column."""
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

    def _counted_on_write(self, name: str) -> bool:
        """Whether this facet's counts are read from search.facet_counts: over
        all of the model's records (no condition in the base queryset)."""
        return not self.queryset.query.where and facet_counts.kept(
            self.queryset.model, name
        )

    def _narrowed(self, name: str) -> QuerySet | None:
        """The records that pass every filter but this facet's own; None when no
        other filter narrows them."""
        data = self.form.cleaned_data if self.is_bound else {}
        if all(
            _unset(value)
            for key, value in data.items()
            if key != name and key not in self.ordering_filters
        ):
            return None
        return self.filter_queryset(self.queryset.all(), without=name)

    def _counted(
        self, names: list[str], limit: int, selections: dict[str, set[str]]
    ) -> dict[str, list[tuple[str, str, int]]]:
        """(value, label, count) of each facet's most frequent values, and of every
        selected one whatever its rank: only these are kept (and cached), however
        many values a facet has. Counted through the joins, or from the counts
        kept on write (search.facet_counts) where they serve."""
        rows: dict[str, list[dict]] = {name: [] for name in names}
        kept_here = [n for n in names if self._counted_on_write(n)]
        live = [n for n in names if n not in kept_here]
        for row in self.facet_query(live) if live else ():
            rows[row["facet"]].append(row)
        if kept_here:
            rows |= facet_counts.counts(
                self.queryset.model,
                {name: self._narrowed(name) for name in kept_here},
                limit=limit,
                selected=selections,
            )
        kept = {}
        for name in names:
            options = self.facets[name].options(rows[name])
            kept[name] = options[:limit] + [
                o for o in options[limit:] if o[0] in selections[name]
            ]
        return kept

    def facet_results(
        self, names: list[str] | None = None, limit: int = FACET_LIMIT
    ) -> list[FacetResult]:
        """Every facet's counts, each remembered for the data version."""
        if self.is_bound:
            self.errors  # noqa: B018
        wanted = [n for n in self.facets if names is None or n in names]
        params = as_query_dict(self.data)
        selections = {
            name: {str(v) for v in params.getlist(name)}
            if params and name not in self.form.errors
            else set()
            for name in wanted
        }

        def compute(names: list[str]) -> dict[str, list[tuple[str, str, int]]]:
            return self._counted(names, limit, selections)

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
            # A selection that now matches nothing still shows, to be removed, by
            # its name where the records give one.
            missing = selected - shown
            labels = facet.labels(self.queryset.all(), missing) if missing else {}
            for value in sorted(missing):
                label = labels.get(value, value)
                result.options.append(FacetOption(value, label, 0, True, links))
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
