"""Write lab files: YAML laid out as the hand-written files of demo/ are."""

from typing import Any

import yaml

from labdata.sections import Layout

FLOW_WIDTH = 100


class Flow(dict):
    """A mapping written on one line, as the hand-written files do."""


class FlowList(list):
    """A list written on one line."""


class Quoted(str):
    """A string written in double quotes: the dates of the format."""


class Dumper(yaml.SafeDumper):
    def increase_indent(self, flow: bool = False, indentless: bool = False):
        # Indent list items under their key, as demo/ does.
        return super().increase_indent(flow, False)

    def ignore_aliases(self, data: Any) -> bool:
        return True


# Line breaks other than \n that PyYAML writes unescaped, and then reads back as
# a different break, in every style but double quotes.
_UNICODE_BREAKS = frozenset("\r\x85\u2028\u2029")


def _represent_str(dumper: yaml.SafeDumper, value: str) -> yaml.ScalarNode:
    # Multi-line text (Markdown, BibTeX) as a literal block; PyYAML falls back to
    # quotes by itself where a block cannot hold the text exactly.
    style = "|" if "\n" in value else None
    if _UNICODE_BREAKS.intersection(value):
        style = '"'
    return dumper.represent_scalar("tag:yaml.org,2002:str", value, style=style)


Dumper.add_representer(str, _represent_str)
Dumper.add_representer(
    Quoted,
    lambda d, v: d.represent_scalar("tag:yaml.org,2002:str", str(v), style='"'),
)
Dumper.add_representer(
    Flow, lambda d, v: d.represent_mapping("tag:yaml.org,2002:map", v, True)
)
Dumper.add_representer(
    FlowList, lambda d, v: d.represent_sequence("tag:yaml.org,2002:seq", v, True)
)


def dump(data: dict[str, Any], header: str) -> str:
    """Return the lab file of `data`, after the comment lines of `header`."""
    return header + yaml.dump(
        data,
        Dumper=Dumper,
        allow_unicode=True,
        sort_keys=False,
        default_flow_style=False,
        width=1_000_000,
    )


def present(values: dict[str, Any]) -> dict[str, Any]:
    """Return the fields that hold something: the format leaves blank ones out."""
    return {k: v for k, v in values.items() if v not in ("", None, [])}


def laid_out(values: dict[str, Any], layout: Layout) -> dict[str, Any]:
    """Return the record marked to be written as `layout` says."""
    if layout is Layout.FLOW:
        return Flow(values)
    if layout is Layout.COMPACT:
        return compact(values)
    return values


def compact(values: dict[str, Any]) -> dict[str, Any]:
    """Return the record on one line when it is short and holds no multi-line text."""
    simple = all(
        isinstance(v, int | FlowList) or (isinstance(v, str) and "\n" not in v)
        for v in values.values()
    )
    width = sum(len(str(k)) + len(str(v)) + 4 for k, v in values.items())
    return Flow(values) if simple and width <= FLOW_WIDTH else values


def data(items: list) -> list:
    """Return a list of numbers on one line, a list of mappings one a line."""
    if all(isinstance(item, dict) for item in items):
        return [Flow(item) for item in items]
    return FlowList(items)


def lines(text: str) -> list[str]:
    """Return a text's lines as a list, on one line when short."""
    items = [line.strip() for line in text.splitlines() if line.strip()]
    width = sum(len(line) + 2 for line in items)
    return FlowList(items) if width <= FLOW_WIDTH // 2 else items
