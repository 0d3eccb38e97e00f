"""User text to search terms: only word characters survive, so no engine syntax can."""

import re
from dataclasses import dataclass

from core.lib.cjk import segment

MAX_QUERY_CHARS = 256
MAX_TERMS = 12
MAX_TERM_CHARS = 64
_WORD = re.compile(r"\w+", re.UNICODE)
# Chinese words a query holds that say nothing of what to find (particles,
# conjunctions, "paper"): "朱磊的论文" asks for 朱磊. Left out while another word
# remains; English stop words are the PostgreSQL configuration's affair.
CHINESE_NOISE = frozenset("的 之 地 得 了 和 与 及 或 在 是 等 论文 文章".split())


@dataclass(frozen=True)
class Query:
    text: str
    terms: tuple[str, ...]

    def __bool__(self) -> bool:
        return bool(self.terms)

    @property
    def phrase(self) -> str:
        return " ".join(self.terms)


def parse(raw: str | None) -> Query:
    """Normalise a query: lower case, words only; punctuation splits words, and
    Chinese is split into words as documents are (core.lib.cjk)."""
    text = (raw or "").replace("\x00", " ")[:MAX_QUERY_CHARS].strip()
    words = [
        w[:MAX_TERM_CHARS] for w in _WORD.findall(segment(text.lower())) if w.strip("_")
    ]
    if any(w not in CHINESE_NOISE for w in words):
        words = [w for w in words if w not in CHINESE_NOISE]
    return Query(text=text, terms=tuple(words[:MAX_TERMS]))


def words_of(text: str) -> set[str]:
    """The distinct lower-case words of a text, for the suggestion vocabulary."""
    return {w for w in _WORD.findall(text.lower()) if 2 < len(w) <= MAX_TERM_CHARS}
