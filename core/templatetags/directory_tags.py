import re

from django import template
from django.utils.html import escape, format_html
from django.utils.safestring import SafeString, mark_safe

from core.lib.text import render_markdown

register = template.Library()

# Django's urlize drops the comma of "(https://…), text": this keeps every character.
_ADDRESS = re.compile(r"https?://[^\s()<>\"']*[^\s()<>\"'.,;:!?]")


@register.filter(name="markdown")
def markdown_filter(text: str) -> SafeString:
    return mark_safe(render_markdown(text))  # noqa: S308 - sanitised by nh3


@register.filter
def link_addresses(text: str) -> SafeString:
    """Link the web addresses in `text`, keeping every other character as written."""
    parts, end = [], 0
    for match in _ADDRESS.finditer(text):
        parts.append(escape(text[end : match.start()]))
        parts.append(format_html('<a href="{0}" rel="nofollow">{0}</a>', match[0]))
        end = match.end()
    parts.append(escape(text[end:]))
    return mark_safe("".join(parts))  # noqa: S308 - every part escaped above


@register.filter
def obfuscate_email(address: str) -> str:
    """Write an address as 'name [at] host [dot] org' so harvesters miss it."""
    if not address or "@" not in address:
        return ""
    user, domain = address.rsplit("@", 1)
    return f"{user} [at] {domain.replace('.', ' [dot] ')}"


@register.simple_tag
def author_list(publication) -> SafeString:
    """The publication's authors in order, members linked, co-first authors starred;
    those a source names without their place follow as "with …" (the paper's page
    says more)."""
    placed, unplaced = [], []
    for authorship in publication.authorships.all():
        (unplaced if authorship.position_unknown else placed).append(authorship)
    names = [
        format_html("{}{}", _author(a), "*" if a.equal_contribution else "")
        for a in placed
    ]
    if names and not publication.authors_complete:
        names.append(format_html('<span class="author more">{}</span>', "et al."))
    listed = mark_safe(", ".join(names))  # noqa: S308 - every part is escaped above
    if not unplaced:
        return listed
    others = [_author(a) for a in unplaced]
    joined = (
        mark_safe(", ".join(others[:-1]) + " and ")  # noqa: S308 - escaped above
        if len(others) > 1
        else ""
    )
    with_ = format_html(
        '<span class="authors-unplaced" title="{}">with {}{}</span>',
        "The source names them as authors without their place in the author list.",
        joined,
        others[-1],
    )
    return format_html("{}; {}", listed, with_) if names else with_


def _author(authorship) -> SafeString:
    if authorship.person_id:
        return format_html(
            '<a class="author member" href="{}">{}</a>',
            authorship.person.get_absolute_url(),
            authorship.name,
        )
    return format_html('<span class="author">{}</span>', authorship.name)


@register.simple_tag
def external_link(link, rel: str = "noopener") -> SafeString:
    """A link by its label; the label as plain text, marked, when no URL is known."""
    label = link.label or (link.get_kind_display() if hasattr(link, "kind") else "")
    if not link.url:
        # Never dropped and never given a guessed address: the reader sees the
        # source named it, and that the address is missing.
        return format_html(
            '<span class="link-text no-address" title="{}">{} '
            '<small class="no-address-note">(no address given)</small></span>',
            "The source names this link without giving its address.",
            label,
        )
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
