"""Markdown to safe HTML: raw HTML is escaped, then nh3 keeps only harmless markup."""

import markdown
import nh3

ALLOWED_TAGS = {
    "a",
    "abbr",
    "b",
    "blockquote",
    "br",
    "code",
    "em",
    "h3",
    "h4",
    "hr",
    "i",
    "li",
    "ol",
    "p",
    "pre",
    "strong",
    "sub",
    "sup",
    "ul",
}
ALLOWED_ATTRIBUTES = {"a": {"href", "title"}, "abbr": {"title"}}
URL_SCHEMES = {"http", "https", "mailto"}


def _converter() -> markdown.Markdown:
    md = markdown.Markdown(extensions=["sane_lists", "smarty"], output_format="html")
    # Markdown passes raw HTML through by default; drop those rules so it is escaped.
    md.preprocessors.deregister("html_block")
    md.inlinePatterns.deregister("html")
    return md


def render_markdown(text: str) -> str:
    """Render Markdown to HTML that is safe to mark as safe."""
    if not text:
        return ""
    html = _converter().convert(text)
    return nh3.clean(
        html,
        tags=ALLOWED_TAGS,
        attributes=ALLOWED_ATTRIBUTES,
        url_schemes=URL_SCHEMES,
        link_rel="nofollow noopener noreferrer",
    )
