"""Absolute links in API responses, built from `core.paths.slug_path`.

Each view's absolute URL is built once per request, then filled in per record.
"""

from urllib.parse import quote

from django.http import HttpRequest
from rest_framework import serializers

from core.paths import PLACEHOLDER, SAFE, slug_path


def slug_url(request: HttpRequest | None, view_name: str, slug: str) -> str:
    """The absolute URL of the view for this slug (a path without a request)."""
    if request is None:
        return slug_path(view_name, slug)
    templates = request.__dict__.setdefault("_slug_urls", {})
    template = templates.get(view_name)
    if template is None:
        template = request.build_absolute_uri(slug_path(view_name, PLACEHOLDER))
        templates[view_name] = template
    return template.replace(PLACEHOLDER, quote(str(slug), safe=SAFE), 1)


class SlugLinkMixin:
    """For hyperlinked fields looked up by `slug`: the URL from `slug_url`."""

    def get_url(self, obj, view_name, request, format):
        if format or self.lookup_field != "slug" or self.lookup_url_kwarg != "slug":
            return super().get_url(obj, view_name, request, format)
        slug = getattr(obj, "slug", None)
        return slug_url(request, view_name, slug) if slug else None


class SlugIdentityField(SlugLinkMixin, serializers.HyperlinkedIdentityField):
    pass


class SlugRelatedLinkField(SlugLinkMixin, serializers.HyperlinkedRelatedField):
    pass
