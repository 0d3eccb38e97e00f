"""Publications per year, drawn from the year facet of the publications page so
that the picture and the facet always show the same numbers; citations per year,
from the counts their source gave."""

from collections import Counter
from collections.abc import Iterable

from django.http import QueryDict
from django.urls import reverse

from core.lib.charts import BarChart, year_bars
from core.models import MAX_YEAR, MIN_YEAR
from publications.filters import PublicationFilter
from publications.models import Publication
from search.facets import FacetResult
from search.filters import as_query_dict


def years_from_facet(facet: FacetResult, link_prefix: str = "") -> BarChart | None:
    """Bars of the year facet's values; each links where its facet option does."""
    options = [o for o in facet.options if o.count]
    return year_bars(
        [(int(o.value), o.count) for o in options],
        url={int(o.value): link_prefix + o.url for o in options}.get,
        selected=[int(o.value) for o in options if o.selected],
    )


def publications_per_year(params: dict | QueryDict) -> BarChart | None:
    """What the publications page's year facet counts for the filters `params`,
    with bars linking to that page."""
    filterset = PublicationFilter(
        as_query_dict(params), queryset=Publication.objects.with_authors()
    )
    [facet] = filterset.facet_results(["year"])
    return years_from_facet(facet, link_prefix=reverse("publications:list"))


def citations_per_year(counts: Iterable[list[dict]]) -> BarChart | None:
    """Citations per year summed over records' `counts_by_year` (None without any)."""
    totals: Counter[int] = Counter()
    for rows in counts:
        for row in rows or []:
            if MIN_YEAR <= row["year"] <= MAX_YEAR:  # a stray year would span ages
                totals[row["year"]] += row["cited_by_count"]
    return year_bars(totals.items()) if totals else None
