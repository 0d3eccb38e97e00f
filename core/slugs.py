"""Slugs unique among those already taken, for the records an import creates.

Names in any script become ASCII by transliteration (anyascii: Chinese as pinyin,
Cyrillic, Greek, Arabic…); a name with nothing to transliterate takes the record's
own fallback (its ORCID iD, its id at a source). No slug is a word of the site's
URLs, which a detail page's slug would otherwise be shadowed by or shadow.
"""

import unicodedata

from anyascii import anyascii
from django.utils.text import slugify

# The literal words of the URLconf beside its slug routes and above them
# (tests/core/test_slugs.py checks the URLconf holds no other).
RESERVED = frozenset(
    {
        "admin",
        "api",
        "bib",
        "calendar",
        "connections",
        "edit",
        "events",
        "export",
        "feed",
        "healthz",
        "ics",
        "json",
        "media",
        "network",
        "new",
        "people",
        "publications",
        "readyz",
        "ris",
        "robots",
        "search",
        "sitemap",
        "static",
        "topics",
        "txt",
        "vcard",
        "xml",
    }
)


def _ascii(char: str) -> str:
    """A character in ASCII: an ideograph or a Hangul syllable as a word of its own
    (祝磊: "Zhu Lei"), other letters, marks and digits as spelt, any other
    non-ASCII character (emoji, symbols, punctuation) as a space."""
    if char.isascii():
        return char
    if not unicodedata.category(char).startswith(("L", "M", "N")):
        return " "
    name = unicodedata.name(char, "")
    if name.startswith(("CJK UNIFIED", "CJK COMPATIBILITY", "HANGUL SYLLABLE")):
        return f" {anyascii(char)} "
    return anyascii(char)


def slug_of(text: str) -> str:
    """The slug a text makes, in ASCII whatever its script; empty when none."""
    return slugify("".join(_ascii(c) for c in text))


def unique_slug(text: str, taken: set[str], limit: int, *, fallback: str) -> str:
    """Return a slug of `text` (of `fallback`, the record's id, when `text` gives
    none) that is neither in `taken` nor a word of the site's URLs; take it."""
    base = slug_of(text)[: limit - 8].strip("-") or slug_of(fallback)[: limit - 8]
    slug, n = base, 1
    while slug in taken or slug in RESERVED:
        n += 1
        slug = f"{base}-{n}"
    taken.add(slug)
    return slug
