"""Why a record matched, in words: "research interest: Sparse attention · 2 papers:
DuoAttention, …" instead of an excerpt of its search document.

An app names a record's sources (its interests, papers, news…) when it registers
its kind; the engine has already decided that the record matches, so this only
finds which sources hold the query's words, with a light stemmer close to the
engines' ("quantized" finds "quantization"). The output is HTML: every text is
escaped first, then the matched words are marked.
"""

import re
import unicodedata
from collections.abc import Iterable
from dataclasses import dataclass

from django.utils.html import escape

from core.lib.cjk import SEPARATOR, segment, unsegment
from search.query import Query

SHOWN_ITEMS = 2
SHOWN_REASONS = 3
QUOTE_BEFORE, QUOTE_AFTER = 4, 8
_WORD = re.compile(r"\w+", re.UNICODE)
# Whitespace but the separator of Chinese words, which str.split() counts as space.
_SPACES = re.compile(rf"[^\S{SEPARATOR}]+")
# Longest first: the first that leaves a stem of three letters or more is cut.
_SUFFIXES = sorted(
    "s es ed ing ings ion ions ation ations ization izations ize izes ized izing "
    "ise ised ising er ers ly al ally ity ities ive ness ment ments".split(),
    key=len,
    reverse=True,
)


@dataclass(frozen=True)
class Source:
    """One thing a record is found by: `text` is shown (quoted when `quote`),
    `also` are short alternatives shown after it when only they match (a topic's
    aliases and the topics above it), `hidden` matches without being shown (a
    paper's summary). A `terse` text (a role, a degree) says nothing of what it
    was found by: matched through its hidden text only, the source is left out."""

    label: str
    text: str
    also: tuple[str, ...] = ()
    hidden: str = ""
    quote: bool = False
    plural: str = ""
    terse: bool = False


def topic_source(name: str, text: str, label: str = "topic") -> Source:
    """A topic, found also by its aliases and the topics above it (`text` is its
    line of search.documents.topic_texts)."""
    return Source(label, name, also=tuple(p for p in text.split(" · ") if p != name))


def fold(word: str) -> str:
    decomposed = unicodedata.normalize("NFKD", word.casefold())
    return "".join(c for c in decomposed if not unicodedata.combining(c))


def stem(word: str) -> str:
    for suffix in _SUFFIXES:
        if word.endswith(suffix) and len(word) - len(suffix) >= 3:
            return word[: -len(suffix)]
    return word


class Matcher:
    """Which words of a text are the query's, by stem (or a longer word's prefix)."""

    def __init__(self, query: Query) -> None:
        self.stems = {stem(fold(term)) for term in query.terms}
        self._seen: dict[str, str | None] = {}

    def term_of(self, word: str) -> str | None:
        # Texts repeat their words: each is folded and stemmed once per query.
        if word not in self._seen:
            self._seen[word] = self._term_of(word)
        return self._seen[word]

    def _term_of(self, word: str) -> str | None:
        s = stem(fold(word))
        for t in self.stems:
            if s == t or (len(t) >= 4 and s.startswith(t)):
                return t
        return None

    # Chinese is matched by its words, as the engines match it (core.lib.cjk): a
    # text is segmented first, and what is shown has the separators taken out.
    def terms_in(self, text: str) -> set[str]:
        # A word holds a term only as its beginning: plain text that holds no
        # term anywhere holds none of them (most texts, told at C speed).
        if text.isascii():
            lower = text.lower()
            if not any(t in lower for t in self.stems):
                return set()
        return {t for w in _WORD.findall(segment(text)) if (t := self.term_of(w))}

    def mark(self, text: str) -> str:
        """The text, escaped, with the query's words in <mark>."""
        return unsegment(self._mark(segment(text)))

    def _mark(self, text: str) -> str:
        out, last = [], 0
        for m in _WORD.finditer(text):
            if self.term_of(m.group()):
                out += [
                    escape(text[last : m.start()]),
                    f"<mark>{escape(m.group())}</mark>",
                ]
                last = m.end()
        out.append(escape(text[last:]))
        return "".join(out)

    def quote(self, text: str) -> str:
        """A few words either side of the first match, marked, in quotes."""
        text = segment(text)
        words = list(_WORD.finditer(text))
        first = next((i for i, m in enumerate(words) if self.term_of(m.group())), 0)
        lo, hi = max(0, first - QUOTE_BEFORE), min(len(words), first + QUOTE_AFTER)
        if len(words) <= QUOTE_BEFORE + QUOTE_AFTER:
            lo, hi = 0, len(words)  # short enough to quote whole
        start = words[lo].start() if lo else 0
        end = words[hi - 1].end() if hi < len(words) else len(text)
        excerpt = _SPACES.sub(" ", text[start:end]).strip()
        before = "…" if lo > 0 else ""
        after = "…" if hi < len(words) else ""
        return f"“{before}{unsegment(self._mark(excerpt))}{after}”"


def explain(query: Query, sources: Iterable[Source]) -> str:
    """The sources that hold the query's words, grouped by label in the order
    given (the first few labels), each shown once; "" when none does."""
    matcher = Matcher(query)
    groups: dict[str, list[tuple[int, str]]] = {}
    plurals: dict[str, str] = {}
    seen: set[tuple[str, str]] = set()
    for source in sources:
        shown = matcher.terms_in(source.text)
        alternatives = [a for a in source.also if matcher.terms_in(a)]
        found = shown | matcher.terms_in(" ".join(alternatives))
        if not found and source.hidden and not source.terse:
            found = matcher.terms_in(source.hidden)
        if not found or (source.label, source.text) in seen:
            continue
        seen.add((source.label, source.text))
        if source.quote:
            html = matcher.quote(source.text)
        else:
            html = matcher.mark(source.text)
            if not shown and alternatives:
                html += f" ({matcher.mark(alternatives[0])})"
        groups.setdefault(source.label, []).append((len(found), html))
        plurals[source.label] = source.plural or f"{source.label}s"
    parts = []
    for label, items in list(groups.items())[:SHOWN_REASONS]:
        # Stable: the sources holding the most of the query's words first.
        items = [html for _, html in sorted(items, key=lambda item: -item[0])]
        shown_items = ", ".join(items[:SHOWN_ITEMS])
        more = ", …" if len(items) > SHOWN_ITEMS else ""
        if len(items) == 1:
            parts.append(f"{escape(label)}: {shown_items}")
        else:
            parts.append(f"{len(items)} {escape(plurals[label])}: {shown_items}{more}")
    return " · ".join(parts)


def once(snippet: str) -> str:
    """An engine's snippet with each of its " · "-separated parts once."""
    parts = snippet.split(" · ")
    return " · ".join(dict.fromkeys(p for p in parts if p.strip()))
