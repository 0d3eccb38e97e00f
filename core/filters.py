"""Filters of the shared records' API lists (the domain apps' are in their own)."""

import django_filters

from core.models import Topic


class TopicFilter(django_filters.FilterSet):
    q = django_filters.CharFilter(
        method="search",
        label="Topics whose name or other names contain every word.",
        max_length=256,
    )

    class Meta:
        model = Topic
        fields = ["q"]

    def search(self, queryset, name: str, value: str):
        return queryset.matching(value) if value.strip() else queryset
