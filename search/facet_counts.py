"""Facet counts kept on write, so that no list waits for them to be recounted.

Counting a facet walks its joins over every record that passes the filters: the
topics of 100,000 papers with their ancestors, or each member's papers' venues,
take a second and more on SQLite. Here each record's values for each facet are
written once, when the record is indexed (`store`, from `search.indexing.index`,
in the write's transaction), as `FacetValue` rows; `FacetCount` holds how many
records have each value, changed by the same difference. Then

- an unfiltered list reads its counts from `FacetCount` (no recount, cache or not);
- a filtered one counts `FacetValue` rows of the records that pass the other
  filters: one indexed table, no joins.

A facet whose values depend on the day (`annotate`) is counted live, as before.
A facet's value is a related record's pk (a topic, a venue, a member), whose slug
and name are read only for the values shown: renaming one rewrites nothing here.
"""

from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass

from django.core.exceptions import FieldDoesNotExist
from django.db import connection, models, transaction
from django.db.models import CharField, Count, QuerySet, Value
from django.db.models.functions import Cast
from django.utils.module_loading import autodiscover_modules

from search.facets import Facet
from search.models import FacetCount, FacetValue
from search.registry import searchable_for, searchables

# From this many changed counts on, a kind's counts are recounted in one statement.
_RECOUNT_FROM = 2000
_CHUNK = 2000

_filtersets: list = []  # the FacetedFilterSet classes
_discovered = False


def register(filterset: type) -> None:
    """A FacetedFilterSet class, whose facets over its model are kept here."""
    _filtersets.append(filterset)


def facets_of(model: type[models.Model]) -> dict[str, Facet]:
    """The facets the FilterSets over `model` declare, but those counted live."""
    global _discovered
    if not _discovered:
        autodiscover_modules("filters")  # every app's FilterSets register on import
        _discovered = True
    return {
        name: facet
        for filterset in _filtersets
        if filterset._meta.model is model
        for name, facet in filterset.facets.items()
        if facet.annotate is None
    }


@dataclass(frozen=True)
class Path:
    """Where a facet's value is read: `key` (a related record's pk, or the plain
    value) and, for a related record, its model with the field shown as the value
    and the fields tried in turn for its label."""

    key: str
    model: type[models.Model] | None = None
    value_field: str = ""
    label_fields: tuple[str, ...] = ()


def path_of(model: type[models.Model], facet: Facet) -> Path:
    steps = facet.path.split("__")
    at = model
    for depth, step in enumerate(steps[:-1]):
        try:
            field = at._meta.get_field(step)
        except FieldDoesNotExist:
            return Path(facet.path)
        if not field.is_relation:  # a transform, e.g. date__year
            return Path(facet.path)
        at = field.related_model
        if depth == len(steps) - 2:
            prefix = "__".join(steps[:-1])
            labels = tuple(
                p.removeprefix(prefix + "__")
                for p in facet.label_paths
                if p.startswith(prefix + "__")
            )
            return Path(f"{prefix}__pk", at, steps[-1], labels)
    return Path(facet.path)


def _kind_of(model: type[models.Model]) -> str | None:
    try:
        return searchable_for(model).kind
    except LookupError:
        return None


def _values(model, facets: dict[str, Facet], ids: list[int]) -> set[tuple]:
    """(record, facet, value) of these records, read in one query per chunk."""
    found = set()
    for start in range(0, len(ids), _CHUNK):
        chunk = ids[start : start + _CHUNK]
        parts = [
            model._default_manager.filter(pk__in=chunk)
            .order_by()
            .values_list(
                "pk", Value(name), Cast(path_of(model, facet).key, CharField())
            )
            for name, facet in facets.items()
        ]
        rows = parts[0].union(*parts[1:], all=True)
        found.update((pk, name, value) for pk, name, value in rows if value is not None)
    return found


def store(kind: str, ids: Iterable[int], live: set[int]) -> None:
    """Bring the facet values of these records (and so the counts) up to date;
    records not `live` (deleted, or being deleted) lose theirs."""
    model = searchables()[kind].model
    facets = facets_of(model)
    if not facets:
        return
    ids = sorted(set(ids))
    if len(ids) >= _RECOUNT_FROM and not FacetValue.objects.filter(kind=kind).exists():
        _insert_all(model, kind, facets, live)  # a rebuild, a generated lab
        return
    new = _values(model, facets, sorted(live))
    old = {}
    for start in range(0, len(ids), _CHUNK):
        rows = FacetValue.objects.filter(
            kind=kind, record_id__in=ids[start : start + _CHUNK]
        ).values_list("pk", "record_id", "facet", "value")
        old.update({(record, facet, value): pk for pk, record, facet, value in rows})
    gone = [pk for row, pk in old.items() if row not in new]
    added = sorted(row for row in new if row not in old)
    if not gone and not added:
        return
    delta = Counter((facet, value) for _, facet, value in added)
    delta.subtract((facet, value) for (_, facet, value) in old.keys() - new)
    with transaction.atomic():
        for start in range(0, len(gone), _CHUNK):
            FacetValue.objects.filter(pk__in=gone[start : start + _CHUNK]).delete()
        if added:
            FacetValue.objects.bulk_create(
                [
                    FacetValue(kind=kind, record_id=r, facet=f, value=v)
                    for r, f, v in added
                ],
                batch_size=1000,
            )
        changed = {key: n for key, n in delta.items() if n}
        if len(changed) >= _RECOUNT_FROM:
            recount(kind)
        elif changed:
            _add(kind, changed)


def _add(kind: str, changed: dict[tuple[str, str], int]) -> None:
    """Add to the counts in one statement per thousand: an upsert, so that two
    writers adding to the same new value both count."""
    table = FacetCount._meta.db_table
    rows = [(kind, facet, value, n) for (facet, value), n in sorted(changed.items())]
    with connection.cursor() as cursor:
        for start in range(0, len(rows), 1000):
            chunk = rows[start : start + 1000]
            cursor.execute(
                f'INSERT INTO "{table}" (kind, facet, value, n) VALUES '
                + ", ".join(["(%s, %s, %s, %s)"] * len(chunk))
                + " ON CONFLICT (kind, facet, value) DO UPDATE"
                f' SET n = "{table}".n + excluded.n',
                [x for row in chunk for x in row],
            )
    FacetCount.objects.filter(kind=kind, n__lte=0).delete()


def _insert_all(model, kind: str, facets: dict[str, Facet], live: set[int]) -> None:
    """The values of many records none of which has any yet, written by the
    database itself (INSERT … SELECT per facet), then counted."""
    table = FacetValue._meta.db_table
    everything = len(live) == model._default_manager.count()
    live = sorted(live)
    chunks = (
        [None]
        if everything
        else [live[start : start + _CHUNK] for start in range(0, len(live), _CHUNK)]
    )
    with transaction.atomic(), connection.cursor() as cursor:
        for name, facet in facets.items():
            key = path_of(model, facet).key
            for chunk in chunks:
                rows = model._default_manager.order_by()
                if chunk is not None:
                    rows = rows.filter(pk__in=chunk)
                rows = (
                    rows.annotate(_value=Cast(key, CharField()))
                    .filter(_value__isnull=False)
                    .values_list(Value(kind), "pk", Value(name), "_value")
                    .distinct()
                )
                sql, params = rows.query.sql_with_params()
                cursor.execute(
                    f'INSERT INTO "{table}" (kind, record_id, facet, value) {sql}',
                    params,
                )
        recount(kind)


def recount(kind: str) -> None:
    """Every count of a kind from its facet values, in one statement."""
    with transaction.atomic(), connection.cursor() as cursor:
        FacetCount.objects.filter(kind=kind).delete()
        cursor.execute(
            f'INSERT INTO "{FacetCount._meta.db_table}" (kind, facet, value, n) '
            f'SELECT kind, facet, value, COUNT(*) FROM "{FacetValue._meta.db_table}" '
            "WHERE kind = %s GROUP BY kind, facet, value",
            [kind],
        )


def drop(kind: str) -> None:
    """Forget a kind's values and counts (a rebuild stores them all again)."""
    FacetValue.objects.filter(kind=kind).delete()
    FacetCount.objects.filter(kind=kind).delete()


def kept(model: type[models.Model], name: str) -> bool:
    """Whether this facet of `model`'s records is kept here."""
    return _kind_of(model) is not None and name in facets_of(model)


def counts(
    model: type[models.Model],
    wanted: dict[str, QuerySet | None],
    *,
    limit: int,
    selected: dict[str, set[str]],
) -> dict[str, list[dict]]:
    """Rows of (value, label, n) per facet, as `Facet.options` reads them, each
    over the records given for it (None: every record of the kind). Facets over
    the same records are counted in one query. Of a facet ordered by count, only
    the `limit` most frequent values (with ties) and the selected ones are read
    out, however many values it has."""
    kind = _kind_of(model)
    facets = facets_of(model)
    pairs: dict[str, list[tuple[str, int]]] = {}
    sets: dict[str, tuple[QuerySet, list[str]]] = {}
    unfiltered = [name for name, records in wanted.items() if records is None]
    if unfiltered:
        pairs.update(_all(kind, unfiltered))
    for name, records in wanted.items():
        if records is not None:
            sql = str(records.order_by().values("pk").query)
            sets.setdefault(sql, (records, []))[1].append(name)
    total = model._default_manager.count() if sets else 0
    for records, names in sets.values():
        pairs.update(_over(model, kind, names, records, total))
    rows = {}
    for name, found in pairs.items():
        facet = facets[name]
        if facet.order == "count" and len(found) > limit:
            floor = sorted((n for _, n in found), reverse=True)[limit - 1]
            keep = _keys(model, facet, selected.get(name, set()))
            found = [(v, n) for v, n in found if n >= floor or v in keep]
        rows[name] = _shown(model, facet, found)
    return rows


def _all(kind: str, names: list[str]) -> dict[str, list[tuple[str, int]]]:
    found: dict[str, list[tuple[str, int]]] = {name: [] for name in names}
    rows = FacetCount.objects.filter(kind=kind, facet__in=names)
    for facet, value, n in rows.values_list("facet", "value", "n"):
        found[facet].append((value, n))
    return found


def _grouped(kind: str, names: list[str], records: QuerySet) -> dict:
    found: dict[str, list[tuple[str, int]]] = {name: [] for name in names}
    rows = (
        FacetValue.objects.filter(
            kind=kind, facet__in=names, record_id__in=records.order_by().values("pk")
        )
        .values("facet", "value")
        .annotate(n=Count("*"))
        .values_list("facet", "value", "n")
    )
    for facet, value, n in rows:
        found[facet].append((value, n))
    return found


def _over(model, kind: str, names: list[str], records: QuerySet, total: int) -> dict:
    """Facets' counts over some records: their own values counted, or, when they
    are most of the records, every count less those of the records left out (a
    search for a word most papers hold reads the few without it)."""
    if records.count() * 2 <= total:
        return _grouped(kind, names, records)
    rest = model._default_manager.exclude(pk__in=records.order_by().values("pk"))
    left_out = _grouped(kind, names, rest)
    found = {}
    for name, pairs in _all(kind, names).items():
        totals = Counter(dict(pairs))
        totals.subtract(dict(left_out[name]))
        found[name] = [(value, n) for value, n in totals.items() if n > 0]
    return found


def _keys(model, facet: Facet, values: set[str]) -> set[str]:
    """The keys these facet values are counted by."""
    path = path_of(model, facet)
    if path.model is None or not values:
        return set(values)
    rows = path.model._default_manager.filter(**{f"{path.value_field}__in": values})
    return {str(pk) for pk in rows.values_list("pk", flat=True)}


def _shown(model, facet: Facet, pairs: list[tuple[str, int]]) -> list[dict]:
    """The counted keys as the values and labels a facet shows."""
    path = path_of(model, facet)
    if path.model is None:
        return [{"value": v, "label": None, "n": n} for v, n in pairs]
    keys = [v for v, _ in pairs]
    related = path.model._default_manager.filter(pk__in=keys)
    fields = [path.value_field, *path.label_fields]
    shown = {str(row[0]): row[1:] for row in related.values_list("pk", *fields)}
    rows = []
    for key, n in pairs:
        if key not in shown:
            continue
        value, *labels = shown[key]
        label = next((str(x) for x in labels if x not in (None, "")), None)
        rows.append(
            {"value": None if value is None else str(value), "label": label, "n": n}
        )
    return rows
