"""Paths of records addressed by slug, reversed once per view instead of per record.

A profile links hundreds of records (every member among its papers' authors) and an
API page about 600: `reverse()` resolves each through the URL patterns. Here each
view is reversed once with a placeholder slug (per script prefix), then filled in.
"""

import functools
from urllib.parse import quote

from django.urls import get_script_prefix, reverse

PLACEHOLDER = "0slug0"
# What Django's reverse() leaves unquoted in a path (RFC 3986 sub-delimiters, /~:@).
SAFE = "!$&'()*+,;=/~:@"


@functools.lru_cache(maxsize=128)
def _template(view_name: str, prefix: str) -> str:
    return reverse(view_name, kwargs={"slug": PLACEHOLDER})


def slug_path(view_name: str, slug: str) -> str:
    """The same path as `reverse(view_name, kwargs={"slug": slug})`."""
    template = _template(view_name, get_script_prefix())
    return template.replace(PLACEHOLDER, quote(str(slug), safe=SAFE), 1)
