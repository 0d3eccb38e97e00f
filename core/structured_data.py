"""Machine-readable page metadata shared by every app: schema.org helpers.

Every builder reads only what the detail views already prefetch, so adding the
metadata costs no queries. No builder ever includes an email address.
"""

import html
import json
from collections.abc import Callable
from typing import Any

from django.core.serializers.json import DjangoJSONEncoder
from django.utils.html import strip_tags

from core.text import render_markdown

SCHEMA = "https://schema.org"

# The characters that could end a <script> element or open a comment inside it;
# the same set Django's json_script escapes.
_SCRIPT_ESCAPES = {ord("<"): "\\u003C", ord(">"): "\\u003E", ord("&"): "\\u0026"}

Absolute = Callable[[str], str]


def to_json_for_script(data: Any) -> str:
    """JSON that is safe inside a <script> element whatever its strings hold."""
    text = json.dumps(data, cls=DjangoJSONEncoder, ensure_ascii=False, indent=None)
    return text.translate(_SCRIPT_ESCAPES)


def clean(data: dict[str, Any]) -> dict[str, Any]:
    """Drop the properties that hold nothing."""
    return {k: v for k, v in data.items() if v not in ("", None, [], {})}


def plain_text(markdown_text: str) -> str:
    """Markdown as one line of plain text."""
    return " ".join(html.unescape(strip_tags(render_markdown(markdown_text))).split())


def organization(org) -> dict[str, Any]:
    kind = "CollegeOrUniversity" if org.kind == "university" else "Organization"
    return clean(
        {
            "@type": kind,
            "name": org.name,
            "alternateName": org.short_name,
            "url": org.url,
        }
    )


def person_ref(name: str, person, absolute: Absolute) -> dict[str, Any]:
    return clean(
        {
            "@type": "Person",
            "name": name,
            "url": absolute(person.get_absolute_url()) if person else "",
        }
    )
