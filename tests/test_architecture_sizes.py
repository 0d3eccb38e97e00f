"""Functions and modules stay sized to one idea: no function over 60 lines, and no
module over 600 lines unless its docstring has a line starting "Long because"."""

import ast
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = [
    "directory",
    "core",
    "search",
    "people",
    "publications",
    "events",
    "sources",
    "jobs",
    "labdata",
    "bench",
]
MAX_FUNCTION_LINES = 60
MAX_MODULE_LINES = 600
REASON = "Long because"
# Migrations are generated history, left as Django wrote them.


def modules() -> Iterator[tuple[str, ast.Module, int]]:
    for package in PACKAGES:
        for path in sorted((ROOT / package).rglob("*.py")):
            name = path.relative_to(ROOT).as_posix()
            if "migrations" in path.parts:
                continue
            text = path.read_text()
            yield name, ast.parse(text), len(text.splitlines())


def test_no_function_is_over_60_lines() -> None:
    long = [
        f"{name}:{node.lineno} {node.name} ({node.end_lineno - node.lineno + 1} lines)"
        for name, tree, _ in modules()
        for node in ast.walk(tree)
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef)
        and node.end_lineno - node.lineno + 1 > MAX_FUNCTION_LINES
    ]
    assert not long, "\n".join(long)


def test_a_module_over_600_lines_says_why_at_its_top() -> None:
    unexplained = [
        f"{name} ({lines} lines)"
        for name, tree, lines in modules()
        if lines > MAX_MODULE_LINES
        and not any(
            line.startswith(REASON)
            for line in (ast.get_docstring(tree) or "").splitlines()
        )
    ]
    assert not unexplained, "\n".join(unexplained)
