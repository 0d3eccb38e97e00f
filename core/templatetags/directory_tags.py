from django import template
from django.utils.html import format_html
from django.utils.safestring import SafeString, mark_safe

from core.text import render_markdown

register = template.Library()


@register.filter(name="markdown")
def markdown_filter(text: str) -> SafeString:
    return mark_safe(render_markdown(text))  # noqa: S308 - sanitised by nh3


@register.filter
def obfuscate_email(address: str) -> str:
    """Write an address as 'name [at] host [dot] org' so harvesters miss it."""
    if not address or "@" not in address:
        return ""
    user, domain = address.rsplit("@", 1)
    return f"{user} [at] {domain.replace('.', ' [dot] ')}"


@register.simple_tag
def author_list(publication) -> SafeString:
    """The publication's authors in order, members linked, co-first authors starred."""
    parts = []
    for authorship in publication.authorships.all():
        star = "*" if authorship.equal_contribution else ""
        if authorship.position_unknown:
            # Named by the source without a place in the list: say so beside it.
            star += " (author; position not given by the source)"
        if authorship.person_id:
            parts.append(
                format_html(
                    '<a class="author member" href="{}">{}</a>{}',
                    authorship.person.get_absolute_url(),
                    authorship.name,
                    star,
                )
            )
        else:
            parts.append(
                format_html('<span class="author">{}</span>{}', authorship.name, star)
            )
    if not publication.authors_complete:
        parts.append(format_html('<span class="author more">{}</span>', "et al."))
    return mark_safe(", ".join(parts))  # noqa: S308 - every part is escaped above


@register.simple_tag
def external_link(link, rel: str = "noopener") -> SafeString:
    """A link by its label; the label as plain text when no URL is known."""
    label = link.label or (link.get_kind_display() if hasattr(link, "kind") else "")
    if not link.url:
        return format_html('<span class="link-text">{}</span>', label)
    return format_html('<a href="{}" rel="{}">{}</a>', link.url, rel, label or link.url)


@register.simple_tag(takes_context=True)
def query_with(context, **changes) -> str:
    """The current query string with some parameters replaced (None removes one)."""
    params = context["request"].GET.copy()
    for key, value in changes.items():
        if value is None or value == "":
            params.pop(key, None)
        else:
            params[key] = value
    encoded = params.urlencode()
    return f"?{encoded}" if encoded else "?"
