"""Printed names in parts, and text folded for comparing names, titles and venues.

Shared by the writer (an author's BibTeX name), the exports (CSL and RIS names) and
the matching of imported entries; no parser behind them.
"""

import re
import unicodedata

_NOT_WORD = re.compile(r"[\W_]+")


def name_parts(name: str, family_name: str = "") -> tuple[str, str, str]:
    """(given, family, suffix) of a printed name; given is blank for an organisation."""
    name = " ".join(name.split())
    if family_name and family_name in name:
        start = name.rfind(family_name)
        given = name[:start].strip()
        suffix = name[start + len(family_name) :].strip(" ,")
        return given, family_name, suffix
    words = name.split()
    if len(words) < 2:
        return "", name, ""
    return " ".join(words[:-1]), words[-1], ""


def fold(text: str) -> str:
    """Text for comparing: no accents, no case, words of letters and digits only."""
    if not text.isascii():
        text = unicodedata.normalize("NFKD", text)
        text = "".join(c for c in text if not unicodedata.combining(c))
    return " ".join(_NOT_WORD.sub(" ", text.casefold()).split())
