"""Slugs unique among those already taken, for the records an import creates."""

from django.utils.text import slugify


def unique_slug(text: str, taken: set[str], limit: int) -> str:
    """Return a slug of `text` not in `taken`, and add it there."""
    # The word for a text with nothing to slugify; existing slugs of every kind
    # (people and organisations too) were made with it.
    base = slugify(text)[: limit - 8].strip("-") or "publication"
    slug, n = base, 1
    while slug in taken:
        n += 1
        slug = f"{base}-{n}"
    taken.add(slug)
    return slug
