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

from core.lib.text import render_markdown

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


def identified(
    ids: list[tuple[str, str, str]], same_as: list[str] | None = None
) -> dict[str, Any]:
    """`sameAs` and `identifier` (PropertyValues) of (scheme, id, URL) triples;
    blank ids are left out, and `same_as` URLs follow the ids' own."""
    given = [(scheme, value, url) for scheme, value, url in ids if value]
    return {
        "sameAs": list(dict.fromkeys([*(url for *_, url in given), *(same_as or [])])),
        "identifier": [
            {"@type": "PropertyValue", "propertyID": scheme, "value": value, "url": url}
            for scheme, value, url in given
        ],
    }
