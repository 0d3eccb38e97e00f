"""Tags for a page's metadata: JSON-LD, Scholar and social meta tags, citations."""

from django import template
from django.db.models.fields.files import FieldFile
from django.utils.html import format_html, format_html_join
from django.utils.safestring import SafeString, mark_safe
from django.utils.text import Truncator

from core.structured_data import to_json_for_script
from events.models import Event
from events.structured_data import event_jsonld
from people.models import Person
from people.structured_data import person_jsonld
from publications.citation import apa
from publications.models import Publication
from publications.structured_data import publication_jsonld
from publications.structured_data import scholar_meta as scholar_tags

register = template.Library()

_BUILDERS = {
    Person: person_jsonld,
    Publication: publication_jsonld,
    Event: event_jsonld,
}


@register.simple_tag(takes_context=True)
def jsonld(context, obj) -> SafeString:
    """A schema.org description of the object in a JSON-LD data block."""
    data = _BUILDERS[type(obj)](obj, context["request"].build_absolute_uri)
    return format_html(
        '<script type="application/ld+json">{}</script>',
        # Escaped for a script element: no string can close it.
        mark_safe(to_json_for_script(data)),  # noqa: S308
    )


@register.simple_tag(takes_context=True)
def scholar_meta(context, publication) -> SafeString:
    """Google Scholar's citation_* meta tags, authors in print order."""
    tags = scholar_tags(publication, context["request"].build_absolute_uri)
    return format_html_join(
        "\n  ", '<meta name="{}" content="{}">', ((n, c) for n, c in tags)
    )


@register.simple_tag(takes_context=True)
def social_meta(
    context,
    title: str = "",
    description: str = "",
    og_type: str = "website",
    image="",
    **properties: str,
) -> SafeString:
    """OpenGraph and Twitter card tags; a page passes what it knows of itself."""
    if isinstance(image, FieldFile):
        image = image.url if image else ""
    # Error pages may be rendered without a request (Django's 400 view).
    request = context.get("request")
    absolute = request.build_absolute_uri if request else (lambda url: url)
    lab = context.get("lab")
    site_name = lab.name if lab else ""
    title = title or site_name
    description = Truncator(
        " ".join((description or (lab.description if lab else "")).split())
    ).chars(200)
    tags = [
        ("property", "og:site_name", site_name),
        ("property", "og:type", og_type),
        ("property", "og:title", title),
        ("property", "og:description", description),
        ("property", "og:url", absolute(request.path) if request else ""),
        ("property", "og:image", absolute(image) if image else ""),
    ]
    # Extra OpenGraph properties of the page's type: profile:first_name=...
    tags += [
        ("property", name.replace("__", ":"), value)
        for name, value in properties.items()
        if value
    ]
    tags += [
        ("name", "twitter:card", "summary_large_image" if image else "summary"),
        ("name", "twitter:title", title),
        ("name", "twitter:description", description),
        ("name", "twitter:image", absolute(image) if image else ""),
    ]
    return format_html_join(
        "\n  ", '<meta {}="{}" content="{}">', (t for t in tags if t[2])
    )


@register.simple_tag
def citation_apa(publication) -> str:
    """The publication as an APA-like reference (plain text, escaped on output)."""
    return apa(publication)
