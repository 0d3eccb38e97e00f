"""Layouts of the server-drawn SVG pictures: bars over years, networks, treemaps.

Every layout is a function of its data alone (inputs are sorted, the force layout's
randomness is seeded, coordinates are printed rounded), so the same data draws the
same bytes. The templates in `templates/includes/chart_*.html` turn them into SVG.
"""

import math
import random
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

LAYOUT_SEED = 18
LABEL_CHARS = 24
CHAR_WIDTH = 6.6  # the width of an average character at the pictures' 11px


def num(value: float) -> str:
    """A coordinate as SVG text: one decimal at most, never "-0"."""
    text = f"{value:.1f}".rstrip("0").rstrip(".")
    return "0" if text == "-0" else text


def clip(label: str, chars: int = LABEL_CHARS) -> str:
    """`label` cut to `chars` characters, an ellipsis marking the cut."""
    return label if len(label) <= chars else label[: chars - 1].rstrip() + "…"


@dataclass(frozen=True)
class Bar:
    label: str
    value: int
    x: str
    y: str
    width: str
    height: str
    label_x: str
    url: str = ""
    selected: bool = False
    show_label: bool = True


@dataclass(frozen=True)
class BarChart:
    width: int
    height: int
    baseline: str
    bars: list[Bar]
    ticks: list[tuple[str, int]]  # (y, value) of each horizontal grid line
    total: int
    first: int
    last: int
    peak: tuple[int, int]  # the year with the most, and its count
    rows: list[tuple[str, int, str]]  # the table: (label, value, url)


def year_bars(
    counts: Iterable[tuple[int, int]],
    *,
    url: Callable[[int], str] | None = None,
    selected: Iterable[int] = (),
    height: int = 200,
) -> BarChart | None:
    """One bar per year from the first to the last year counted (gaps drawn empty),
    in a picture as wide as its years need."""
    counted = dict(counts)
    if not counted:
        return None
    first, last = min(counted), max(counted)
    years = list(range(first, last + 1))
    width = max(320, min(640, 44 + 48 * len(years)))
    chosen = set(selected)
    left, right, above, below = 36, 8, 10, 24
    plot_w, plot_h = width - left - right, height - above - below
    ceiling, ticks = _grid(max(counted.values()), above, plot_h)
    slot = plot_w / len(years)
    gap = max(min(2.0, slot * 0.2), slot - 40)  # bars at most 40 wide
    every = max(1, math.ceil(len(years) / 12))  # at most about 12 year labels
    bars = []
    for i, year in enumerate(years):
        value = counted.get(year, 0)
        h = plot_h * value / ceiling
        x = left + i * slot
        bars.append(
            Bar(
                label=str(year),
                value=value,
                x=num(x + gap / 2),
                y=num(above + plot_h - h),
                width=num(slot - gap),
                height=num(h),
                label_x=num(x + slot / 2),
                url=url(year) if url and value else "",
                selected=year in chosen,
                show_label=(last - year) % every == 0,
            )
        )
    return BarChart(
        width=width,
        height=height,
        baseline=num(above + plot_h),
        bars=bars,
        ticks=ticks,
        total=sum(counted.values()),
        first=first,
        last=last,
        peak=max(counted.items(), key=lambda item: (item[1], -item[0])),
        rows=[
            (str(year), counted[year], url(year) if url else "")
            for year in sorted(counted, reverse=True)
        ],
    )


def _grid(top: int, above: float, plot_h: float) -> tuple[int, list[tuple]]:
    """The value at the top of the plot, and its grid lines as (y, value)."""
    step = _nice_step(top)
    ceiling = max(step, math.ceil(top / step) * step)
    return ceiling, [
        (num(above + plot_h - plot_h * v / ceiling), v)
        for v in range(0, ceiling + 1, step)
    ]


def _nice_step(top: int) -> int:
    """A grid step of 1, 2 or 5 times a power of ten giving at most five lines."""
    for power in range(0, 10):
        for factor in (1, 2, 5):
            step = factor * 10**power
            if top / step <= 4:
                return step
    return 10**10


@dataclass(frozen=True)
class NodeData:
    key: str
    label: str
    weight: int
    url: str = ""


@dataclass(frozen=True)
class Node:
    key: str
    label: str
    short_label: str
    weight: int
    url: str
    x: str
    y: str
    r: str
    label_x: str
    label_y: str
    anchor: str
    center: bool = False


@dataclass(frozen=True)
class Edge:
    source: str
    target: str
    weight: int
    x1: str
    y1: str
    x2: str
    y2: str
    stroke: str
    faint: bool = False


@dataclass
class Network:
    width: int
    height: int
    nodes: list[Node] = field(default_factory=list)
    edges: list[Edge] = field(default_factory=list)


Links = dict[tuple[str, str], int]


def _radius(weight: int, top: int) -> float:
    return 5 + 13 * math.sqrt(weight / top) if top else 5


def _stroke(weight: int, top: int) -> str:
    return num(1 + 4 * weight / top if top else 1)


def _edges(
    links: Links, at: dict[str, tuple[float, float]], *, faint: bool = False
) -> list[Edge]:
    """Lines between placed nodes, as thick as their weight (thin when `faint`)."""
    top = max(links.values(), default=0)
    edges = []
    for (a, b), weight in sorted(links.items()):
        if a in at and b in at:
            (x1, y1), (x2, y2) = at[a], at[b]
            stroke = "1" if faint else _stroke(weight, top)
            edges.append(
                Edge(a, b, weight, num(x1), num(y1), num(x2), num(y2), stroke, faint)
            )
    return edges


def _node(
    data: NodeData, x: float, y: float, r: float, angle: float | None, center: bool
) -> Node:
    """A node with its label beside it, away from the middle (below when `angle`
    is None)."""
    if angle is None or center:
        anchor, lx, ly = "middle", x, y + r + 13
    else:
        cos, sin = math.cos(angle), math.sin(angle)
        anchor = "start" if cos > 0.15 else "end" if cos < -0.15 else "middle"
        lx = x + (r + 4) * cos
        ly = y + (r + 4) * sin + (4 if abs(cos) > 0.15 else 12 if sin > 0 else -4)
    return Node(
        key=data.key,
        label=data.label,
        short_label=clip(data.label),
        weight=data.weight,
        url=data.url,
        x=num(x),
        y=num(y),
        r=num(r),
        label_x=num(lx),
        label_y=num(ly),
        anchor=anchor,
        center=center,
    )


def ego_network(
    center: NodeData,
    others: list[NodeData],
    links: Links,
    *,
    width: int = 760,
    height: int = 440,
) -> Network:
    """`center` in the middle joined to `others` (heaviest first, clockwise from the
    top, on an ellipse that leaves their labels room); `links` among the others
    are drawn thin."""
    ordered = sorted(others, key=lambda n: (-n.weight, n.label, n.key))
    top = max((n.weight for n in ordered), default=0)
    cx, cy = width / 2, height / 2
    rx, ry = (200.0, 165.0) if len(ordered) > 12 else (180.0, 140.0)
    at = {center.key: (cx, cy)}
    nodes = [_node(center, cx, cy, _radius(top, top) + 2, None, True)]
    for i, data in enumerate(ordered):
        angle = -math.pi / 2 + 2 * math.pi * i / len(ordered)
        x, y = cx + rx * math.cos(angle), cy + ry * math.sin(angle)
        at[data.key] = (x, y)
        nodes.append(_node(data, x, y, _radius(data.weight, top), angle, False))
    spokes = {(center.key, n.key): n.weight for n in ordered}
    edges = _edges(links, at, faint=True) + _edges(spokes, at)
    return Network(width, height, nodes, edges)


def force_network(
    nodes: list[NodeData],
    links: Links,
    *,
    width: int = 800,
    height: int | None = None,
    iterations: int = 300,
    seed: int = LAYOUT_SEED,
) -> Network:
    """A Fruchterman–Reingold layout from seeded starting places."""
    ordered = sorted(nodes, key=lambda n: n.key)
    n = len(ordered)
    if height is None:  # a few members need less room than fifty
        height = min(720, max(280, 200 + 12 * n))
    if not n:
        return Network(width, height)
    rng = random.Random(seed)
    pos = [[rng.random(), rng.random()] for _ in ordered]
    index = {node.key: i for i, node in enumerate(ordered)}
    edges = [
        (index[a], index[b], w)
        for (a, b), w in sorted(links.items())
        if a in index and b in index
    ]
    _relax(pos, edges, iterations)
    spread = max(
        max(p[0] for p in pos) - min(p[0] for p in pos),
        max(p[1] for p in pos) - min(p[1] for p in pos),
    )
    _keep_apart(pos, 0.6 * spread / math.sqrt(n))
    # Scaled alike in both directions (distances keep their meaning), centred.
    xs, ys = [p[0] for p in pos], [p[1] for p in pos]
    room_x, room_y = width - 2 * 90, height - 2 * 30 - 14
    span_x, span_y = max(xs) - min(xs), max(ys) - min(ys)
    scale = min(room_x / max(span_x, 1e-9), room_y / max(span_y, 1e-9))
    mid_x, mid_y = (max(xs) + min(xs)) / 2, (max(ys) + min(ys)) / 2
    top_weight = max(node.weight for node in ordered)
    # When the height bounds the scale, the canvas is no wider than what is drawn
    # (names included), so that a few members fit a phone without scrolling.
    reach = max(
        max(_radius(d.weight, top_weight), CHAR_WIDTH * len(clip(d.label)) / 2)
        for d in ordered
    )
    width = min(width, math.ceil(span_x * scale + 2 * (reach + 8)))
    at, drawn = {}, []
    for i, data in enumerate(ordered):
        x = width / 2 + (pos[i][0] - mid_x) * scale
        y = (height - 14) / 2 + (pos[i][1] - mid_y) * scale
        at[data.key] = (x, y)
        r = _radius(data.weight, top_weight)
        drawn.append(_node(data, x, y, r, None, False))
    return Network(width, height, drawn, _edges(links, at))


def _relax(
    pos: list[list[float]], edges: list[tuple[int, int, int]], iterations: int
) -> None:
    """Move `pos` by Fruchterman–Reingold: every pair repels, links attract (the
    stronger the closer), and the steps cool down."""
    n = len(pos)
    top = max((w for _, _, w in edges), default=1)
    k = math.sqrt(1.0 / n)
    temperature = 0.1
    for step in range(iterations):
        shift = [[0.0, 0.0] for _ in pos]
        for i in range(n):
            xi, yi = pos[i]
            for j in range(i + 1, n):
                dx, dy = xi - pos[j][0], yi - pos[j][1]
                d2 = max(dx * dx + dy * dy, 1e-6)
                f = k * k / d2
                shift[i][0] += dx * f
                shift[i][1] += dy * f
                shift[j][0] -= dx * f
                shift[j][1] -= dy * f
        for i, j, w in edges:
            dx, dy = pos[i][0] - pos[j][0], pos[i][1] - pos[j][1]
            d = max(math.hypot(dx, dy), 1e-3)
            f = d / k * (0.5 + w / top)
            shift[i][0] -= dx * f
            shift[i][1] -= dy * f
            shift[j][0] += dx * f
            shift[j][1] += dy * f
        for i in range(n):
            # Gravity keeps unconnected members from drifting to the edges.
            sx = shift[i][0] - (pos[i][0] - 0.5) * 0.5
            sy = shift[i][1] - (pos[i][1] - 0.5) * 0.5
            length = max(math.hypot(sx, sy), 1e-9)
            move = min(length, temperature)
            pos[i][0] += sx / length * move
            pos[i][1] += sy / length * move
        temperature = 0.1 * (1 - (step + 1) / iterations) + 0.002


def _keep_apart(pos: list[list[float]], gap: float, rounds: int = 50) -> None:
    """Push apart nodes closer than `gap` (strong links pull groups into a knot
    whose labels would cover each other)."""
    n = len(pos)
    for _ in range(rounds):
        moved = False
        for i in range(n):
            for j in range(i + 1, n):
                dx, dy = pos[i][0] - pos[j][0], pos[i][1] - pos[j][1]
                d = math.hypot(dx, dy)
                if d >= gap:
                    continue
                if d < 1e-9:  # the same place: part them along a fixed direction
                    dx, dy, d = 1e-3, 0.0, 1e-3
                push = (gap - d) / 2 / d
                pos[i][0] += dx * push
                pos[i][1] += dy * push
                pos[j][0] -= dx * push
                pos[j][1] -= dy * push
                moved = True
        if not moved:
            return


@dataclass(frozen=True)
class TileData:
    key: str
    label: str
    value: int
    url: str = ""
    children: tuple["TileData", ...] = ()


@dataclass(frozen=True)
class Tile:
    label: str
    lines: tuple[str, ...]  # the whole label, wrapped; empty when it does not fit
    value: int
    url: str
    x: str
    y: str
    width: str
    height: str
    text_x: str
    text_y: str
    group: bool
    shade: int


# Treemap labels are drawn at 12px, one to a line of LINE pixels; a group's name
# fits its header.
TILE_FONT = 12
TILE_CHAR_WIDTH = CHAR_WIDTH * TILE_FONT / 11
LINE = 14.0
HEADER = 18.0
TREEMAP_WIDTH, TREEMAP_HEIGHT = 960, 440


def treemap(
    items: list[TileData],
    *,
    width: int = TREEMAP_WIDTH,
    height: int = TREEMAP_HEIGHT,
) -> list[Tile]:
    """Squarified tiles: each item's area is proportional to its value; an item's
    children share its area (below a header naming it) in proportion to theirs."""
    tiles: list[Tile] = []
    roots = _sorted_tiles(items)
    for shade, (data, (x, y, w, h)) in enumerate(
        zip(
            roots,
            _squarify([t.value for t in roots], 0, 0, width, height),
            strict=True,
        )
    ):
        children = _sorted_tiles(data.children)
        has_room = h > 3 * HEADER and w > 60
        tiles.append(_tile(data, x, y, w, h, bool(children and has_room), shade % 8))
        if children and has_room:
            inner = _squarify(
                [c.value for c in children], x + 2, y + HEADER, w - 4, h - HEADER - 2
            )
            for child, (cx, cy, cw, ch) in zip(children, inner, strict=True):
                tiles.append(_tile(child, cx, cy, cw, ch, False, shade % 8))
    return tiles


def _sorted_tiles(items: Iterable[TileData]) -> list[TileData]:
    return sorted((t for t in items if t.value > 0), key=lambda t: (-t.value, t.key))


def _tile(
    data: TileData, x: float, y: float, w: float, h: float, group: bool, shade: int
) -> Tile:
    rows = 1 if group else int((h - 6) / LINE)
    return Tile(
        label=data.label,
        lines=wrap(data.label, int((w - 8) / TILE_CHAR_WIDTH), rows),
        value=data.value,
        url=data.url,
        x=num(x + 1),
        y=num(y + 1),
        width=num(max(w - 2, 0)),
        height=num(max(h - 2, 0)),
        text_x=num(x + 5),
        text_y=num(y + 14),
        group=group,
        shade=shade,
    )


def wrap(label: str, chars: int, rows: int) -> tuple[str, ...]:
    """`label` in lines of at most `chars` characters, broken between words; ()
    when it needs more than `rows` lines or a word is longer than a line: a tile
    shows its whole name or none (its tooltip and the table still give it)."""
    lines: list[str] = []
    for word in label.split():
        if lines and len(lines[-1]) + 1 + len(word) <= chars:
            lines[-1] += f" {word}"
        else:
            lines.append(word)
    if len(lines) > rows or any(len(line) > chars for line in lines):
        return ()
    return tuple(lines)


def _squarify(
    values: list[int], x: float, y: float, w: float, h: float
) -> list[tuple[float, float, float, float]]:
    """Rectangles for `values` (largest first) filling x, y, w, h, laid in rows
    whose tiles stay as square as they can (Bruls, Huizing and van Wijk)."""
    total = sum(values)
    if not values or total <= 0 or w <= 0 or h <= 0:
        return [(x, y, 0.0, 0.0) for _ in values]
    areas = [v * w * h / total for v in values]
    rects: list[tuple[float, float, float, float]] = []
    row: list[float] = []
    i = 0
    while i < len(areas):
        side = min(w, h)
        candidate = [*row, areas[i]]
        if not row or _worst(candidate, side) <= _worst(row, side):
            row = candidate
            i += 1
            continue
        x, y, w, h = _lay_row(row, x, y, w, h, rects)
        row = []
    if row:
        _lay_row(row, x, y, w, h, rects)
    return rects


def _worst(row: list[float], side: float) -> float:
    total = sum(row)
    return max(
        max(side * side * a / (total * total), total * total / (side * side * a))
        for a in row
    )


def _lay_row(
    row: list[float],
    x: float,
    y: float,
    w: float,
    h: float,
    rects: list[tuple[float, float, float, float]],
) -> tuple[float, float, float, float]:
    """Lay `row` along the shorter side; return the space left."""
    total = sum(row)
    if w >= h:
        thickness = total / h
        offset = y
        for area in row:
            rects.append((x, offset, thickness, area / thickness))
            offset += area / thickness
        return x + thickness, y, w - thickness, h
    thickness = total / w
    offset = x
    for area in row:
        rects.append((offset, y, area / thickness, thickness))
        offset += area / thickness
    return x, y + thickness, w, h - thickness
