"""User text to search terms: only word characters survive, so no engine syntax can."""

import re
from dataclasses import dataclass

MAX_QUERY_CHARS = 256
MAX_TERMS = 12
MAX_TERM_CHARS = 64
_WORD = re.compile(r"\w+", re.UNICODE)


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
    """Normalise a query: lower case, words only; punctuation splits words."""
    text = (raw or "").replace("\x00", " ")[:MAX_QUERY_CHARS].strip()
    words = [w[:MAX_TERM_CHARS] for w in _WORD.findall(text.lower()) if w.strip("_")]
    return Query(text=text, terms=tuple(words[:MAX_TERMS]))


def words_of(text: str) -> set[str]:
    """The distinct lower-case words of a text, for the suggestion vocabulary."""
    return {w for w in _WORD.findall(text.lower()) if 2 < len(w) <= MAX_TERM_CHARS}
