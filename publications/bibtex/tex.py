"""TeX markup in BibTeX fields as Unicode text.

pylatexenc is the reference reader, configured for bibliographies (logos, sort
macros, switches). It is slow, so a value is read a word at a time, the same word
once per process, and the words made only of logos, switches, escapes and accents
are read through tables that give what pylatexenc gives without parsing
(tests/publications/test_bibtex_decode.py holds the two to the same text).
"""

import functools
import re
import unicodedata

from pylatexenc import latexwalker, macrospec
from pylatexenc.latex2text import (
    LatexNodes2Text,
    MacroTextSpec,
    get_default_latex_context_db,
)

# Macros that only steer sorting (`{\noopsort{a}}Zheng`): their argument is dropped.
_SORT_MACROS = ("noopsort", "sortnoop", "SortNoop", "nosort", "NOOP", "oopsort")
# Logos and commands of TeX's world that pylatexenc does not know, as their text;
# any other unknown command keeps its name (`_Text`), so that no word is lost.
_LOGOS = {
    "TeX": "TeX",
    "LaTeX": "LaTeX",
    "LaTeXe": "LaTeX2ε",
    "La": "La",
    "AllTeX": "(La)TeX",
    "BibTeX": "BibTeX",
    "slBibTeX": "BibTeX",
    "AmSTeX": "AMS-TeX",
    "AmSLaTeX": "AMS-LaTeX",
    "AMS": "AMS",
    "AmS": "AMS",
    "MF": "METAFONT",
    "METAFONT": "METAFONT",
    "slMF": "METAFONT",
    "MP": "MetaPost",
    "METAPOST": "MetaPost",
    "TUG": "TUG",
    "TUB": "TUGboat",
    "MTeX": "MTeX",
    "eTeX": "ε-TeX",
    "pdfTeX": "pdfTeX",
    "XeTeX": "XeTeX",
    "LuaTeX": "LuaTeX",
    "ConTeXt": "ConTeXt",
    "TeXLive": "TeX Live",
    "OMEGA": "Omega",
    "PS": "PostScript",
    "Dash": "—",
    "dash": "—",
    "bs": "\\",
    "thinspace": " ",
    "tubissue": "TUGboat",
}
# Font, size and spacing switches: what they change is not text.
_SWITCHES = (
    "tt",
    "it",
    "bf",
    "sl",
    "sf",
    "rm",
    "sc",
    "em",
    "ssf",
    "smc",
    "SMC",
    "slc",
    "manual",
    "relax",
    "normalfont",
    "small",
    "footnotesize",
    "large",
    "Large",
)
_JOINED = {*_SWITCHES, "bs"}
# Commands whose one braced argument is their text.
_ARGUMENT_IS_TEXT = ("acro", "hbox", "mbox", "smash", "llap", "rlap")
# TeX's own dimensions (`\kern-.15em`, `\raise.25ex`) are no arguments pylatexenc
# reads; `\char`\\` is a character given by its code (here a backslash).
_DIMENSION = re.compile(
    r"\\(?:kern|raise|lower|hskip|vskip)\s*-?\s*[\d.]+\s*"
    r"(?:em|ex|pt|bp|mm|cm|in|sp|pc|dd|cc|mu)"
)
_CHAR_CODE = re.compile(r"\\char\s*`\\?(.)")


def _char(match: re.Match) -> str:
    return r"\textbackslash{}" if match.group(1) == "\\" else "{" + match.group(1) + "}"


def _ordinal(node) -> str:
    number = _argument_text(node)
    if not number.isdigit():
        return number
    last = int(number) % 100
    suffix = "th" if 10 <= last <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(last % 10)
    return number + (suffix or "th")


def _argument_text(node) -> str:
    argument = node.nodeargd.argnlist[-1] if node.nodeargd else None
    return argument.latex_verbatim()[1:-1] if argument is not None else ""


class _Text(LatexNodes2Text):
    """pylatexenc's text, but an unknown command word gives its name, not nothing."""

    def macro_node_to_text(self, node) -> str:
        name = node.macroname
        if name.isalpha() and self.latex_context.get_macro_spec(name) is None:
            return name
        return super().macro_node_to_text(node)

    # A private method: pylatexenc keeps the space after every bare macro alike
    # (`\LaTeX and`, with `between-macro-and-chars` off) and offers no public hook
    # to treat a switch otherwise; the spacing after macros is discussed in
    # phfaist/pylatexenc#11 and #16. pylatexenc is pinned in requirements.txt and
    # tests/publications/test_bibtex_decode.py pins what this override relies on.
    def _is_bare_macro_node(self, node) -> bool:
        # The space after a switch or `\bs` only ends the command's name.
        return super()._is_bare_macro_node(node) and node.macroname not in _JOINED


@functools.cache
def _decoder() -> tuple[LatexNodes2Text, object]:
    one_argument = [*_SORT_MACROS, *_ARGUMENT_IS_TEXT, "nth"]
    text_context = get_default_latex_context_db()
    text_context.add_context_category(
        "bibtex-import",
        prepend=True,
        macros=[
            MacroTextSpec("url", simplify_repl="%s"),
            MacroTextSpec("nth", simplify_repl=_ordinal),
            *(MacroTextSpec(name, discard=True) for name in _SORT_MACROS),
            *(MacroTextSpec(name, discard=True) for name in _SWITCHES),
            *(MacroTextSpec(name, discard=False) for name in _ARGUMENT_IS_TEXT),
            *(MacroTextSpec(name, simplify_repl=text) for name, text in _LOGOS.items()),
        ],
    )
    walker_context = latexwalker.get_default_latex_context_db()
    walker_context.add_context_category(
        "bibtex-import",
        prepend=True,
        macros=[macrospec.std_macro(name, False, 1) for name in one_argument],
    )
    decoder = _Text(
        latex_context=text_context,
        math_mode="text",
        keep_braced_groups=False,
        # The space after a command is kept: `\LaTeX and` means two words.
        strict_latex_spaces={
            "between-macro-and-chars": False,
            "between-latex-constructs": True,
            "after-comment": False,
            "in-equations": "based-on-source",
        },
    )
    return decoder, walker_context


@functools.lru_cache(maxsize=65536)
def decode_latex(value: str) -> str:
    """TeX markup as Unicode text: accents, escapes, dashes, logos; braces removed."""
    if "\\" not in value and "$" not in value:
        return _plain(value)
    # pylatexenc's time grows with the text it reads: it reads only the words that
    # hold TeX, and the same word (`\TeX`, `{\LaTeX}`) is decoded once per import.
    return " ".join(_decode_word(word) for word in _tex_words(_unwrap(value)))


def _plain(value: str) -> str:
    # What pylatexenc would do to text without TeX, without parsing it: skipping
    # the parser is what makes thousands of entries a second possible.
    # Ligatures first: `-{}-` is two hyphens, as TeX reads it.
    return " ".join(_plain_piece(value).replace("{", "").replace("}", "").split())


def _plain_piece(value: str) -> str:
    for tex, text in (("---", "—"), ("--", "–"), ("``", "“"), ("''", "”")):
        value = value.replace(tex, text)
    return value.replace("~", " ")


@functools.lru_cache(maxsize=65536)
def _decode_word(value: str) -> str:
    if "\\" not in value and "$" not in value:
        return _plain(value)
    # An unescaped % is a TeX comment, but in a .bib file it is meant literally.
    value = re.sub(r"(?<!\\)%", r"\\%", value)
    value = _CHAR_CODE.sub(_char, _DIMENSION.sub("", value))
    text = _simple_tex(value)
    if text is not None:
        return text
    decoder, walker_context = _decoder()
    try:
        text = decoder.latex_to_text(value, latex_context=walker_context)
    except Exception:  # pylatexenc is tolerant; keep the text if it ever gives up
        text = value
    return " ".join(text.split())


# Most words with TeX in a bibliography hold only logos, switches, escaped specials
# and accents: read through these tables they give what pylatexenc gives, without
# its parser (tests/publications/test_bibtex_decode.py holds the two to the same
# text). A word with anything else (math, `\\`, a command pylatexenc knows
# and these tables do not) goes to pylatexenc.
_LETTER = r"(?:\\[ij](?![A-Za-z])|[A-Za-z])"  # a letter, or a dotless i or j
_SIMPLE_TOKENS = re.compile(
    rf"\\(?P<accent>['\"`^~=.])\s*(?:\{{(?P<braced>{_LETTER})\}}|(?P<bare>{_LETTER}))"
    rf"|\\(?P<letter_accent>[vHcukr])"
    rf"(?:\{{(?P<lbraced>{_LETTER})\}}|\s+(?P<lbare>[A-Za-z]))"
    r"|\\(?P<name>[A-Za-z]+)(?P<space>\s*)"
    r"|\\(?P<char>.)"
    r"|(?P<brace>[{}])"
    r"|(?P<text>[^\\{}$]+)"
    r"|(?P<math>\$)",
    re.S,
)
# Ligatures and ties that pylatexenc reads as markup of their own.
_SPECIALS = ("--", "``", "''", "~", "!`", "?`")
_ACCENTED = ("braced", "bare", "lbraced", "lbare")
_COMBINING = {
    "'": "\u0301",
    "`": "\u0300",
    "^": "\u0302",
    '"': "\u0308",
    "~": "\u0303",
    "=": "\u0304",
    ".": "\u0307",
    "v": "\u030c",
    "H": "\u030b",
    "c": "\u0327",
    "u": "\u0306",
    "k": "\u0328",
    "r": "\u030a",
}
_LETTERS = {
    "i": "ı",
    "j": "ȷ",
    "l": "ł",
    "L": "Ł",
    "o": "ø",
    "O": "Ø",
    "ss": "ß",
    "ae": "æ",
    "AE": "Æ",
    "oe": "œ",
    "OE": "Œ",
    "aa": "å",
    "AA": "Å",
    "dots": "…",
    "textbackslash": "\\",
}
_ESCAPED = {
    "&": "&",
    "%": "%",
    "#": "#",
    "$": "$",
    "_": "_",
    "{": "{",
    "}": "}",
    " ": " ",
    "/": "",
    ",": " ",
    "-": "\xad",
}


def _simple_tex(value: str) -> str | None:
    """The text of a word of logos, switches, escapes and accents; None otherwise."""
    out: list[str] = []
    space_after_command = False
    for token in _SIMPLE_TOKENS.finditer(value):
        text, name, char = token.group("text", "name", "char")
        if space_after_command and text is not None and not text.startswith(_SPECIALS):
            out.append(" ")  # `\\TeX hax`: two words; before `{`, `\\`, `--` it goes
        space_after_command = False
        if text is not None:
            out.append(_plain_piece(text))
        elif name is not None:
            text = _command_text(name)
            if text is None or token.group("space").count("\n") > 1:
                return None  # unknown to the tables, or a paragraph break follows
            if name in _ARGUMENT_IS_TEXT and not value.startswith("{", token.end()):
                return None  # `\\hbox to 3in{…}`: what its argument is, TeX decides
            out.append(text)
            space_after_command = bool(token.group("space")) and name not in _JOINED
        elif char is not None:
            if char not in _ESCAPED:
                return None
            out.append(_ESCAPED[char])
        elif token.group("math") is not None:
            return None
        elif token.group("brace") is None:  # an accent on a letter
            bare = token.group("bare") or ""
            if "\n\n" in token.group() or (
                bare.startswith("\\") and value[token.end() : token.end() + 1].isspace()
            ):
                return None  # a paragraph break; `\\'\\i ab` (TeX eats that space)
            mark = token.group("accent") or token.group("letter_accent")
            base = [b for b in token.group(*_ACCENTED) if b is not None][0]
            out.append(unicodedata.normalize("NFC", base[-1] + _COMBINING[mark]))
    return " ".join("".join(out).split())


def _command_text(name: str) -> str | None:
    if name in _LOGOS:
        return _LOGOS[name]
    if name in _LETTERS:
        return _LETTERS[name]
    if name in _SWITCHES or name in _ARGUMENT_IS_TEXT:
        return ""  # the argument of the second kind follows as text
    decoder, walker_context = _decoder()
    if (
        walker_context.get_macro_spec(name) is None
        and decoder.latex_context.get_macro_spec(name) is None
    ):
        return name  # unknown: its name, as `_Text` gives it
    return None


_TEX_MARKS = re.compile(r"\\(?:[A-Za-z]+|.)|[{}$]|\s+", re.S)


def _unwrap(value: str) -> str:
    """The value without braces around all of it (`{{Title}}`), which print nothing."""
    value = value.strip()
    while value.startswith("{") and value.endswith("}"):
        depth = 0
        for mark in _TEX_MARKS.finditer(value):
            depth += {"{": 1, "}": -1}.get(mark.group(), 0)
            if depth == 0:
                break
        if mark.end() != len(value):
            break  # `{A} and {B}`: the first brace closes before the end
        value = value[1:-1].strip()
    return value


def _tex_words(value: str) -> list[str]:
    """Split at spaces outside braces and math, except a space that ends a command's
    name (`\\c c`, `\\raise .25ex`): each word then reads alone as it does in place."""
    words, depth, math, start, command_end = [], 0, False, 0, -1
    for mark in _TEX_MARKS.finditer(value):
        text = mark.group()
        if text == "{":
            depth += 1
        elif text == "}":
            depth -= 1
        elif text == "$":
            math = not math
        elif text[0] == "\\":
            command_end = mark.end() if text[1:].isalpha() else -1
        elif depth == 0 and not math and mark.start() != command_end:
            words.append(value[start : mark.start()])
            start = mark.end()
    words.append(value[start:])
    return words


def unescape_verbatim(value: str) -> str:
    """An identifier or address as given: `\\url{…}` and escaped specials undone."""
    value = re.sub(r"\\url\{(.*)\}", r"\1", value.strip())
    return re.sub(r"\\([_%&#~$])", r"\1", value).strip()
