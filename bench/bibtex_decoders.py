"""TeX to text on the 2,720 titles of tugboat.bib: bibtexparser 2's own decoding
middleware, pylatexenc as it comes, and publications.bibtex.tex.decode_latex
(pylatexenc with a table of TeX's logos, reading only the words that hold TeX). Prints a
Markdown table: time, and titles that lose the TeX or LaTeX logo or all their text.
Run after bench/real_bibtex.py has fetched the file.
"""

import re
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bibtexparser.library import Library  # noqa: E402
from bibtexparser.middlewares import LatexDecodingMiddleware  # noqa: E402
from bibtexparser.model import Entry, Field  # noqa: E402
from pylatexenc.latex2text import LatexNodes2Text  # noqa: E402

from publications.bibtex import tex  # noqa: E402

TITLE = re.compile(r'^\s*title\s*=\s*"(.*?)",\s*$', re.M | re.S)
REFERENCE = ROOT / "bench" / "run.py"


def middleware(values: list[str]) -> list[str]:
    library = Library(
        [Entry("article", f"k{i}", [Field("title", v)]) for i, v in enumerate(values)]
    )
    decoded = LatexDecodingMiddleware(allow_inplace_modification=True).transform(
        library
    )
    return [entry.fields_dict["title"].value for entry in decoded.entries]


def pylatexenc(values: list[str]) -> list[str]:
    decoder = LatexNodes2Text()
    return [decoder.latex_to_text(v) for v in values]


def ours(values: list[str]) -> list[str]:
    tex.decode_latex.cache_clear()
    tex._decode_word.cache_clear()
    return [tex.decode_latex(v) for v in values]


def logo_lost(source: str, text: str) -> bool:
    return ("\\TeX" in source and "TeX" not in text) or (
        "\\LaTeX" in source and "LaTeX" not in text
    )


def main() -> None:
    path = ROOT / "var" / "bench" / "bib-cache" / "pybtex" / "tugboat.bib"
    titles = TITLE.findall(path.read_text(encoding="utf-8"))
    reference = subprocess.run(
        [sys.executable, "-c", "import run; print(run.reference_seconds())"],
        cwd=REFERENCE.parent,
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    print(f"{len(titles):,} titles of tugboat.bib; reference workload {reference} s\n")
    print("| decoder | seconds | titles/s | lose TeX or LaTeX | empty |")
    print("|---|---:|---:|---:|---:|")
    for name, decode in (
        ("bibtexparser 2 LatexDecodingMiddleware", middleware),
        ("pylatexenc LatexNodes2Text()", pylatexenc),
        ("publications.bibtex.tex.decode_latex (cold caches)", ours),
    ):
        started = time.perf_counter()
        texts = decode(titles)
        seconds = time.perf_counter() - started
        lost = sum(logo_lost(s, t) for s, t in zip(titles, texts, strict=True))
        empty = sum(not t.strip(" {}") for t in texts)
        print(
            f"| {name} | {seconds:.2f} | {len(titles) / seconds:,.0f} | {lost} "
            f"| {empty} |"
        )


if __name__ == "__main__":
    main()
