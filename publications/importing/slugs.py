"""Slugs for the records and venues an import creates."""

from django.utils.text import slugify


def unique_slug(text: str, taken: set[str], limit: int) -> str:
    """Return a slug of `text` not in `taken`, and add it there."""
    base = slugify(text)[: limit - 8].strip("-") or "publication"
    slug, n = base, 1
    while slug in taken:
        n += 1
        slug = f"{base}-{n}"
    taken.add(slug)
    return slug
