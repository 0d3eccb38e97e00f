import json
import os
import random
import subprocess
import sys
from pathlib import Path

import pytest
from django.template.loader import render_to_string

from core.lib.charts import (
    CHAR_WIDTH,
    NodeData,
    TileData,
    _squarify,
    ego_network,
    force_network,
    num,
    treemap,
    wrap,
    year_bars,
)

BASE_DIR = Path(__file__).resolve().parents[2]


def test_num_prints_one_decimal_and_never_minus_zero():
    assert [num(v) for v in (0, 1.0, 2.25, -0.04, 10.06, -3.5)] == [
        "0",
        "1",
        "2.2",
        "0",
        "10.1",
        "-3.5",
    ]


def test_year_bars_draw_every_year_between_and_tabulate_the_counted_ones():
    chart = year_bars([(2020, 3), (2023, 1), (2022, 6)], url=lambda y: f"?year={y}")
    assert [b.label for b in chart.bars] == ["2020", "2021", "2022", "2023"]
    assert [b.value for b in chart.bars] == [3, 0, 6, 1]
    assert chart.bars[1].url == ""  # an empty year links nowhere
    assert chart.rows == [
        ("2023", 1, "?year=2023"),
        ("2022", 6, "?year=2022"),
        ("2020", 3, "?year=2020"),
    ]
    assert (chart.total, chart.first, chart.last, chart.peak) == (
        10,
        2020,
        2023,
        (2022, 6),
    )
    heights = {b.label: float(b.height) for b in chart.bars}
    assert heights["2022"] == pytest.approx(6 * heights["2023"], abs=0.2)
    assert year_bars([]) is None


def test_year_bars_grid_lines_step_by_one_two_or_five():
    assert [v for _, v in year_bars([(2020, 7)]).ticks] == [0, 2, 4, 6, 8]
    assert [v for _, v in year_bars([(2020, 130)]).ticks] == [0, 50, 100, 150]


def _nodes(n: int) -> list[NodeData]:
    return [
        NodeData(f"m{i}", f"Member {i}", 1 + i % 5, f"/people/m{i}/") for i in range(n)
    ]


def test_force_layout_depends_on_the_data_not_on_its_order():
    nodes = _nodes(30)
    links = {
        (f"m{i}", f"m{(i * 7) % 30}"): 1 + i % 3 for i in range(30) if i != (i * 7) % 30
    }
    shuffled = nodes[:]
    random.Random(1).shuffle(shuffled)
    first = force_network(nodes, links)
    again = force_network(shuffled, dict(reversed(list(links.items()))))
    assert first == again
    assert force_network(nodes, links, seed=2) != first


def test_force_layout_keeps_every_node_and_label_inside_the_picture():
    network = force_network(_nodes(50), {("m1", "m2"): 3, ("m2", "m3"): 1})
    assert len(network.nodes) == 50 and len(network.edges) == 2
    for node in network.nodes:
        assert 0 < float(node.x) - float(node.r) and float(node.x) + float(node.r) < 800
        assert (
            0 < float(node.y) - float(node.r) and float(node.label_y) < network.height
        )


def test_force_layout_of_a_few_members_is_no_wider_than_its_drawing():
    """Four members without a shared paper (the demo lab): the height bounds the
    scale, and the canvas shrinks to the circles and names, to fit a phone."""
    network = force_network(_nodes(4), {})
    assert network.width < 360
    for node in network.nodes:
        half_label = CHAR_WIDTH * len(node.short_label) / 2
        assert float(node.x) - half_label > 0
        assert float(node.x) + half_label < network.width


def test_ego_network_puts_the_member_in_the_middle_and_the_heaviest_on_top():
    center = NodeData("self", "Ada", 9)
    others = [NodeData("b", "Bo", 1), NodeData("c", "Cy", 4), NodeData("d", "Di", 2)]
    network = ego_network(center, others, {("b", "d"): 1})
    middle, top = network.nodes[0], network.nodes[1]
    assert (middle.center, middle.x, middle.y) == (True, "380", "220")
    assert top.label == "Cy" and float(top.y) < float(middle.y)
    assert float(top.r) > float(network.nodes[2].r) > float(network.nodes[3].r)
    spokes = [e for e in network.edges if not e.faint]
    assert {e.target: e.weight for e in spokes} == {"b": 1, "c": 4, "d": 2}
    assert [(e.source, e.target) for e in network.edges if e.faint] == [("b", "d")]


def test_squarified_rectangles_fill_the_space_in_proportion():
    values = [60, 25, 10, 5]
    rects = _squarify(values, 0, 0, 400, 200)
    areas = [w * h for _, _, w, h in rects]
    assert sum(areas) == pytest.approx(400 * 200)
    for value, area in zip(values, areas, strict=True):
        assert area == pytest.approx(400 * 200 * value / 100)
    for x, y, w, h in rects:
        assert x >= -1e-9 and y >= -1e-9 and x + w <= 400 + 1e-6 and y + h <= 200 + 1e-6


def test_treemap_nests_subtopics_and_leaves_out_empty_ones():
    tiles = treemap(
        [
            TileData("a", "Alpha", 30, "/a/", (TileData("a1", "A one", 20, "/a1/"),)),
            TileData("b", "Beta", 10, "/b/"),
            TileData("c", "Gamma", 0, "/c/"),
        ]
    )
    assert [(t.label, t.group) for t in tiles] == [
        ("Alpha", True),
        ("A one", False),
        ("Beta", False),
    ]
    alpha, beta = tiles[0], tiles[2]
    area = lambda t: (float(t.width) + 2) * (float(t.height) + 2)  # noqa: E731
    assert area(alpha) == pytest.approx(3 * area(beta), rel=0.01)


def _render_all() -> str:
    """The three pictures of a fixed data set, as the templates draw them."""
    nodes = _nodes(20)
    links = {(f"m{i}", f"m{i + 1}"): i % 4 + 1 for i in range(19)}
    context = {
        "chart": year_bars([(2001, 2), (2010, 5), (2024, 1)], url=lambda y: f"?y={y}"),
        "network": force_network(nodes, links),
        "ego": ego_network(NodeData("self", "Ada", 3), nodes[:8], links),
        "tiles": treemap([TileData(n.key, n.label, n.weight, n.url) for n in nodes]),
    }
    parts = [
        render_to_string(
            "includes/chart_years.html",
            {**context, "id": "y", "title": "T", "units": "paper,papers"},
        ),
        render_to_string(
            "includes/chart_network.html",
            {**context, "id": "n", "title": "T", "units": "paper,papers"},
        ),
        render_to_string(
            "includes/chart_network.html",
            {"network": context["ego"], "id": "e", "title": "T", "units": "x,xs"},
        ),
        render_to_string(
            "includes/chart_treemap.html",
            {**context, "id": "t", "title": "T", "units": "x,xs"},
        ),
    ]
    return "".join(parts)


def test_the_same_data_draws_the_same_bytes_in_another_process():
    """Another interpreter, with other hash seeds, draws the very same SVG."""
    script = (
        "import django, json, sys; django.setup();"
        "from tests.core.test_charts import _render_all;"
        "sys.stdout.write(json.dumps(_render_all()))"
    )
    outputs = []
    for seed in ("1", "2"):
        env = {
            **os.environ,
            "PYTHONHASHSEED": seed,
            "DJANGO_SETTINGS_MODULE": "tests.settings",
        }
        result = subprocess.run(
            [sys.executable, "-c", script],
            cwd=BASE_DIR,
            env=env,
            capture_output=True,
            text=True,
            check=True,
            timeout=120,
        )
        outputs.append(json.loads(result.stdout))
    assert outputs[0] == outputs[1] == _render_all()
    assert outputs[0].count("<svg") == 4


def test_force_layout_keeps_a_tightly_linked_group_apart_enough_to_read():
    """Five members who wrote everything together among 45 who wrote alone."""
    nodes = _nodes(50)
    links = {(f"m{i}", f"m{j}"): 40 for i in range(5) for j in range(i + 1, 5)}
    network = force_network(nodes, links)
    at = [(float(n.x), float(n.y)) for n in network.nodes]
    closest = min(
        ((ax - bx) ** 2 + (ay - by) ** 2) ** 0.5
        for i, (ax, ay) in enumerate(at)
        for bx, by in at[i + 1 :]
    )
    assert closest >= 30


def test_a_tile_shows_its_whole_name_on_lines_or_none():
    assert wrap("Efficient machine learning", 12, 3) == (
        "Efficient",
        "machine",
        "learning",
    )
    assert wrap("Efficient machine learning", 30, 1) == ("Efficient machine learning",)
    # Never cut: too many lines, or a word longer than a line, gives no label.
    assert wrap("Efficient machine learning", 12, 2) == ()
    assert wrap("Parameter-efficient fine-tuning", 12, 3) == ()
    tiles = treemap(
        [TileData("a", "Large topic", 90, "/a/"), TileData("b", "Tiny one", 1, "/b/")]
    )
    assert [t.lines for t in tiles] == [("Large topic",), ()]
