"""Chinese text split into words, for keyword indexes that cannot split it themselves.

SQLite's unicode61 tokenizer and PostgreSQL's parser split text at spaces and
punctuation, so a run of Han characters is one token and "注意力" never finds
"稀疏注意力机制". `segment` puts SEPARATOR between the words jieba finds in each run
of Han characters, and between a run and what is next to it ("视觉Transformer").
Kana and hangul are left as they are (Korean puts spaces between words; kana
runs stay whole), and so is every other character: text without Han characters is
returned unchanged, without loading jieba.

SEPARATOR is a control character rather than a space: both engines split at it,
and whoever shows indexed text (an engine's snippet) removes it exactly, so the
text reads as it was written, with no space that was not there.
"""

import functools
import re

SEPARATOR = "\x1f"
# CJK ideographs: the unified block, its extensions A to H, the compatibility
# ideographs, and 〇.
_HAN = re.compile(
    r"[\u3007\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\U00020000-\U0003ffff]+"
)
# One range is a cheaper test than _HAN's five: most non-ASCII text (accents,
# typographic quotes) is passed over by it alone.
_FROM_HAN = re.compile(r"[\u3007-\U0010ffff]")


@functools.cache
def _jieba():
    # Imported and loaded on the first Han text: the dictionary takes about a
    # second to load, which pages, commands and tests of Latin text never pay.
    import logging

    import jieba

    jieba.setLogLevel(logging.WARNING)  # not "Building prefix dict…" on stderr
    jieba.initialize()
    return jieba.dt


def segment(text: str) -> str:
    """The text with SEPARATOR around each word of its runs of Han characters."""
    if text.isascii() or not _FROM_HAN.search(text):
        return text
    return _HAN.sub(_words, text)


def _words(run: re.Match) -> str:
    # Without the HMM, a word jieba's dictionary does not know (a name) is cut into
    # its characters, the same in any context, so part of it still finds it; the
    # HMM guesses such words from their neighbours, and "左京伟" became one token
    # that "左京" did not match.
    words = _jieba().cut(run.group(), HMM=False)
    return SEPARATOR + SEPARATOR.join(words) + SEPARATOR


def unsegment(text: str) -> str:
    """The text as it was before `segment`."""
    return text.replace(SEPARATOR, "")
