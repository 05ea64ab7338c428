"""Every heatmap view: attention maps (small multiples, one head large, a real model's
72 heads), signed values (concatenated heads, feed-forward units, W_Q), singular values
and trained heads' maps.

Attention weights share one 0–1 colour axis (palette.WEIGHT_AXIS), signed values one
symmetric diverging axis (palette.signed_axis). A grid of attention maps is ONE heatmap
trace on one pair of axes (grid.tiled: the maps side by side with NaN gutters), not one
subplot or chart per map and not one shape per cell: that is what keeps 72 heads fast in
the browser, and a toy grid of 8 heads ~10 % faster to redraw than 8 subplots
(benchmarks/bench_interaction.py). Long maps are pooled to at most `max_cells` blocks per
side (see attention.geometry.pooling), so pooled rows still sum to 1.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import plotly.graph_objects as go
from plotly.colors import get_colorscale, sample_colorscale

from attention.experiments.rank_limit import RankLimitResult
from attention.experiments.slicing import sliced, stacked
from attention.experiments.training.train import Comparison
from attention.figures.grid import (
    MARGIN,
    PAGE_TITLE_CHARS,
    TITLE_LINE_PX,
    Panel,
    figure,
    framed_layout,
    grid,
    panel_title_chars,
    rectangles_path,
    tiled,
    tiled_labels,
    title_lines,
    titled,
    titles_margin,
    wrapped_title,
)
from attention.figures.palette import (
    BLOCKED_COLOR,
    FOCUS_COLOR,
    FONT_SIZE,
    TOKEN_COLOR,
    WEIGHT_AXIS,
    head_color,
    signed_axis,
)
from attention.figures.text import safe_label, unique_labels
from attention.geometry.pooling import pool_attention, pool_blocks

MAX_GRID_CELLS = 64  # longer maps are pooled to this many blocks per side
LARGE_MAP_CELLS = 256  # a map drawn large (~520 px): longer ones pooled, ~2 px a block
GRID_BLOCKS = 32  # the real model's 72 small maps of a longer text: blocks per side
ROLE_SCALE = "Oranges"  # sequential, distinct from the blue weight scale
GRID_CELL_PX = 92  # height of one layer's row in the real model's grid
BAND_PX = 26  # height of the head bands above the concatenated heads


def heatmap_trace(
    weights: np.ndarray,
    query_labels: list[str],
    key_labels: list[str],
    scores: np.ndarray | None = None,
    allowed: np.ndarray | None = None,
    name: str = "",
) -> dict:
    """One (n_q, n_k) map on the shared colour axis; blocked cells become gaps."""
    z = np.array(weights, dtype=np.float64)
    if allowed is not None:
        z[~np.broadcast_to(allowed, z.shape)] = np.nan
    hover = "query: %{y}<br>key: %{x}<br>weight: %{z:.3f}"
    trace = {
        "type": "heatmap",
        "z": np.round(z, 5),
        "x": key_labels,
        "y": query_labels,
        "coloraxis": "coloraxis",
        "hoverongaps": False,
        "name": name,
        "xgap": 1 if len(key_labels) <= 32 else 0,
        "ygap": 1 if len(query_labels) <= 32 else 0,
    }
    if scores is not None:
        trace["customdata"] = np.round(np.asarray(scores, dtype=np.float64), 4)
        hover += "<br>score q·k/√d: %{customdata:.3f}"
    trace["hovertemplate"] = hover + f"<extra>{name}</extra>"
    return trace


def attention_grid(
    weights: np.ndarray,
    query_tokens: list[str],
    key_tokens: list[str] | None = None,
    **options: object,
) -> go.Figure:
    """Small multiples of (h, n_q, n_k) attention maps in one figure, head 1 first; the
    options are those of `attention_grid_parts`."""
    return figure(*attention_grid_parts(weights, query_tokens, key_tokens, **options))


def attention_grid_parts(
    weights: np.ndarray,
    query_tokens: list[str],
    key_tokens: list[str] | None = None,
    scores: np.ndarray | None = None,
    allowed: np.ndarray | None = None,
    titles: list[str] | None = None,
    columns: int = 4,
    query_side: str = "query",
    key_side: str = "key",
    panel_px: int = 320,
    head_colors: bool = True,
    max_cells: int = MAX_GRID_CELLS,
    square_cells: bool = False,
    title_chars: int = PAGE_TITLE_CHARS,
    colorbar_below: bool = False,
) -> tuple[list[dict], dict]:
    """The traces and layout of `attention_grid`, for figures that build on it.

    Every map is a tile of ONE heatmap trace (grid.tiled: NaN gutters), in rows of
    `columns`, with its title above it, in the head's colour when `head_colors`: one
    pair of axes instead of one per map is what the browser draws fastest. `allowed` is
    the boolean mask broadcastable to the weights (True = may attend); blocked cells are
    grey. Every map shares the tokens, so they are labelled once, on the outer edges:
    keys under each column's last map, queries left of the first column. Square maps
    longer than `max_cells` are pooled into blocks; their hover then shows the pooled
    weight only, and their axes the first token number of every few blocks (a label per
    block was an unreadable smear). `square_cells` keeps every cell square, for a map
    drawn large. Titles wider than their map's share of `title_chars` (the characters
    across the figure at its narrowest: PAGE_TITLE_CHARS at full page width) break into
    lines.
    `colorbar_below` lays the colour bar along the bottom, leaving the width to the maps
    of a grid drawn in a column.
    """
    weights = np.asarray(weights)
    n_heads = weights.shape[0]
    key_tokens = query_tokens if key_tokens is None else key_tokens
    ticks: dict = {}  # every label, or for pooled maps the numbers of a few blocks
    if key_tokens is query_tokens and len(query_tokens) > max_cells:
        weights = pool_attention(weights, max_cells)
        scores = allowed = None
        q_labels = k_labels = block_labels(query_tokens, max_cells)
        starts = pool_blocks(len(query_tokens), max_cells)
        ticks = {"shown": [str(s) for s in starts], "step": math.ceil(max_cells / _POOLED_TICKS)}
        query_side, key_side = f"{query_side} · token number", f"{key_side} · token number"
    else:
        q_labels, k_labels = unique_labels(query_tokens), unique_labels(key_tokens)
    n_q, n_k = weights.shape[1:]
    columns = max(1, min(columns, n_heads))
    rows = math.ceil(n_heads / columns)
    titles = [
        wrapped_title(title, panel_title_chars(title_chars, 1 / columns))
        for title in titles or [f"head {h + 1}" for h in range(n_heads)]
    ]
    title_px = _TITLE_PX + TITLE_LINE_PX * (max(map(title_lines, titles)) - 1)
    row_gap = max(1, math.ceil(title_px * n_q / panel_px))  # room for the titles
    tiles = _Tiles(n_q, n_k, row_gap, col_gap=max(1, round(_MAP_GUTTER * n_k)))
    mask = None if allowed is None else np.broadcast_to(allowed, weights.shape)
    z = np.where(mask, weights, np.nan) if mask is not None else weights
    trace = {
        "type": "heatmap",
        "z": np.round(tiles.tile(z, rows, columns), 5),
        "x": tiles.categories(k_labels, columns, tiles.col_gap),
        "y": tiles.categories(q_labels, rows, tiles.row_gap),
        "coloraxis": "coloraxis",
        "hoverongaps": False,
        "xgap": 1 if n_k <= 32 else 0,
        "ygap": 1 if n_q <= 32 else 0,
    }
    hover = "query: %{y}<br>key: %{x}<br>weight: %{z:.3f}"
    if scores is not None:
        trace["customdata"] = np.round(tiles.tile(np.asarray(scores, float), rows, columns), 4)
        hover += "<br>score q·k/√d: %{customdata:.3f}"
    trace["hovertemplate"] = hover + "<extra></extra>"
    tick_font = {"size": max(9, FONT_SIZE - 2 - len(k_labels) // 12)}
    axis = {
        "type": "category",
        "showgrid": False,
        "zeroline": False,
        "automargin": True,
        "tickfont": tick_font,
    }
    square = {"constrain": "domain"} if square_cells else {}  # the axes hug a square map
    layout = {
        "xaxis": {
            **axis,
            **tiles.ticks(k_labels, range(n_heads - (rows - 1) * columns), tiles.col_gap, **ticks),
            "tickangle": -90 if n_heads > 1 else -60,  # upright labels fit narrow maps
            **square,
            # Exact ranges: the maps fill the axes (autorange pads them once a scatter
            # trace is present), so a cell's position on the page is known.
            "range": [-0.5, len(trace["x"]) - 0.5],
            "title": {"text": key_side},
        },
        "yaxis": {
            **axis,
            **tiles.ticks(q_labels, range(rows), tiles.row_gap, **ticks),
            "range": [len(trace["y"]) - 0.5, -0.5],  # query 1 at the top
            "title": {"text": query_side},
            **square,
            **({"scaleanchor": "x", "scaleratio": 1} if square_cells else {}),
        },
        "annotations": [
            tiles.title(titles[h], *divmod(h, columns), head_color(h) if head_colors else None)
            for h in range(n_heads)
        ],
        "coloraxis": (
            {**WEIGHT_AXIS, "colorbar": {**WEIGHT_AXIS["colorbar"], **_BAR_BELOW}}
            if colorbar_below
            else WEIGHT_AXIS
        ),
        "plot_bgcolor": "white",
        "height": rows * panel_px + 120,
        "margin": {"l": 10, "r": 10, "t": title_px + 20, "b": 10},
        "font": {"size": FONT_SIZE},
    }
    data = [trace]
    if n_heads % columns:  # a short last row: the maps above its gap get their own keys
        above = tiles.row_start(rows - 1) - tiles.row_gap  # cells above that row's top
        layout["xaxis2"] = {
            **layout["xaxis"],
            **tiles.ticks(k_labels, range(n_heads % columns, columns), tiles.col_gap, **ticks),
            "title": None,
            "overlaying": "x",
            "matches": "x",
            "anchor": "free",
            "position": 1 - above / len(trace["y"]),
        }
        data.append({"type": "scatter", "x": [], "y": [], "xaxis": "x2", "hoverinfo": "skip"})
    layout["shapes"] = [tiles.outlines(n_heads, columns)]  # a map's edge, however pale
    if mask is not None and not mask.all():  # grey under every map, white gutters
        layout["shapes"].insert(0, tiles.backgrounds(n_heads, columns, BLOCKED_COLOR))
    return data, layout


def block_labels(tokens: list[str], max_cells: int = MAX_GRID_CELLS) -> list[str]:
    """Axis labels for pooled maps: each token's own label, or "5–12: cat … mat" for a
    block of tokens (positions counted from 0)."""
    if len(tokens) <= max_cells:
        return unique_labels(tokens)
    starts = pool_blocks(len(tokens), max_cells)
    stops = np.append(starts[1:], len(tokens))
    return [
        f"{a}–{b - 1}: {safe_label(tokens[a], 10)} … {safe_label(tokens[b - 1], 10)}"
        for a, b in zip(starts, stops, strict=True)
    ]


def rank_patterns(result: RankLimitResult, d_heads: list[int]) -> go.Figure:
    """The target pattern beside the fitted patterns at the chosen d_heads."""
    n = result.target.shape[0]
    tokens = [f"t{i}" for i in range(n)]
    chosen = [d for d in dict.fromkeys(d_heads) if 1 <= d <= result.d_heads[-1]]
    maps = np.stack([result.target, *(result.fitted[d - 1] for d in chosen)])
    titles = ["target"] + [f"d_head = {d}" for d in chosen]
    return attention_grid(
        maps, tokens, titles=titles, columns=len(titles), head_colors=False, panel_px=300
    )


# A real model's heads ---------------------------------------------------------------

_GUTTER = (0.3, 0.15)  # space between a layer's maps (rows) and a head's (columns), per map
_ROLE_TEXT_PX = 18  # room above the top row for the role values
_FRAME = 0.04  # a frame sits this share of a map outside it
_OUTLINE = {"color": "#B0B0B0", "width": 1}
_MAP_GUTTER = 0.12  # space between two maps of a row, per map width
_TITLE_PX = 30  # room for a map's one-line title above it
_BAR_BELOW = {  # a colour bar lying along the figure's bottom edge, "weight" above it
    "orientation": "h",
    "x": 0,
    "xanchor": "left",
    "y": 0,
    "yref": "container",
    "yanchor": "bottom",
    "len": 160,  # px: readable under the narrowest grid too
    "lenmode": "pixels",
    "thickness": 12,
    "ypad": 4,
    "title": {**WEIGHT_AXIS["colorbar"]["title"], "side": "top"},
}
_POOLED_TICKS = 8  # token numbers along each side of a pooled map


def head_grid_figure(
    attentions: np.ndarray,
    tokens: list[str],
    selected: tuple[int, int] | None = None,
    role: str | None = None,
    role_values: np.ndarray | None = None,
    blocks: int = GRID_BLOCKS,
) -> go.Figure:
    """All (layers, heads, n, n) maps as one grid: layer rows, head columns, shared 0–1
    colour scale, drawn as ONE heatmap trace (grid.tiled). Maps longer than `blocks`
    tokens are pooled to `blocks` blocks a side (each small map is ~80 px wide: more
    cells than pixels cost the browser time and show nothing more; 72 full 64-token
    maps were 5.6 MB on the wire). `selected` (0-based layer,
    head) gets a frame in its head's colour; `role_values` (layers, heads) frames every
    map in a colour scale running from 0 to the largest head's value and writes the
    value above the map."""
    layers, heads = attentions.shape[:2]
    m = min(len(tokens), blocks)
    pooled = pool_attention(attentions, m)
    row_gap, col_gap = (max(1, round(share * m)) for share in _GUTTER)
    labels = block_labels(tokens, m)
    layer_names = [f"layer {layer + 1}" for layer in range(layers)]
    y = tiled_labels([f"{name} · query" for name in layer_names], labels, row_gap)
    x = tiled_labels([f"head {head + 1} · key" for head in range(heads)], labels, col_gap)
    tiles = _Tiles(m, m, row_gap, col_gap)
    axis = {"type": "category", "showgrid": False, "zeroline": False, "ticks": ""}
    layout = {
        "xaxis": {**axis, "showticklabels": False, "title": {"text": "keys →", "standoff": 4}},
        "yaxis": {
            **axis,
            "autorange": "reversed",
            "tickvals": [y[tiles.row_start(layer) + m // 2] for layer in range(layers)],
            "ticktext": layer_names,
            "tickfont": {"color": "#1A1A1A"},
        },
    }
    role_px = 0 if role_values is None else _ROLE_TEXT_PX
    layout.update(
        annotations=[
            {
                "text": f"head<br>{head + 1}",  # two short lines: 12 fit at 1024 px
                "xref": "x",
                "yref": "paper",
                "x": tiles.col_middle(head),
                "y": 1.0,
                "yanchor": "bottom",
                "yshift": role_px,
                "showarrow": False,
                "font": {"color": head_color(head), "size": FONT_SIZE - 3},
            }
            for head in range(heads)
        ],
        coloraxis={**WEIGHT_AXIS, "colorbar": {**WEIGHT_AXIS["colorbar"], "len": 0.6}},
        height=layers * GRID_CELL_PX + 110,
        margin={"l": 70, "r": 10, "t": 54 + role_px, "b": 40},
        font={"size": FONT_SIZE},
        plot_bgcolor="white",
    )
    shapes = [tiles.outlines(layers * heads, heads)]
    data = [
        {
            "type": "heatmap",
            "z": np.round(tiled(pooled, row_gap, col_gap), 5),
            "x": x,
            "y": y,
            "coloraxis": "coloraxis",
            "hoverongaps": False,
            "hovertemplate": "%{y}<br>%{x}<br>weight: %{z:.3f}<extra></extra>",
            "name": f"{layers} layers × {heads} heads",
        }
    ]
    if role_values is not None:
        data.append(_mark_roles(layout, shapes, tiles, role or "role", np.asarray(role_values)))
    if selected is not None:
        shapes.append(tiles.frame(*selected, head_color(selected[1])))
    layout["shapes"] = shapes
    return figure(data, layout)


@dataclass(frozen=True)
class _Tiles:
    """Where the maps of a `tiled` matrix sit on its category axes (cell i at i): maps of
    `height` × `width` cells, `row_gap` and `col_gap` cells apart."""

    height: int
    width: int
    row_gap: int
    col_gap: int

    def row_start(self, row: int) -> int:
        return row * (self.height + self.row_gap)

    def col_start(self, col: int) -> int:
        return col * (self.width + self.col_gap)

    def col_middle(self, col: int) -> float:
        return self.col_start(col) + (self.width - 1) / 2

    def tile(self, maps: np.ndarray, rows: int, columns: int) -> np.ndarray:
        """(h, height, width) maps as one matrix in rows of `columns`, NaN where a short
        last row has no map."""
        padded = np.full((rows * columns, *maps.shape[1:]), np.nan)
        padded[: len(maps)] = maps
        return tiled(padded.reshape(rows, columns, *maps.shape[1:]), self.row_gap, self.col_gap)

    def categories(self, labels: list[str], count: int, gap: int) -> list[str]:
        """Category names along one side: the labels once per map, made unique by a
        map's count of zero-width spaces (invisible in hover), and the gutters' cells."""
        out: list[str] = []
        for t in range(count):
            if t:
                out += [f"gap {t}.{i}" for i in range(gap)]
            out += [label + "\u200b" * t for label in labels]
        return out

    def ticks(
        self,
        labels: list[str],
        maps: range,
        gap: int,
        shown: list[str] | None = None,
        step: int = 1,
    ) -> dict:
        """Tick labels on one side for these maps only (the gutters get none): every
        `step`-th cell, written as `shown` (default: the labels themselves)."""
        names = self.categories(labels, maps.stop, gap)
        per_map = len(labels) + gap
        cells = range(0, len(labels), step)
        text = [(shown or labels)[i] for i in cells]
        values = [names[t * per_map + i] for t in maps for i in cells]
        return {"tickmode": "array", "tickvals": values, "ticktext": text * len(maps)}

    def title(self, text: str, row: int, col: int, color: str | None) -> dict:
        """A map's title just above it."""
        return {
            "text": text,
            "xref": "x",
            "yref": "y",
            "x": self.col_middle(col),
            "y": self.row_start(row) - 0.5,
            "yshift": 4,
            "xanchor": "center",
            "yanchor": "bottom",
            "showarrow": False,
            "font": {"size": FONT_SIZE, **({"color": color} if color else {})},
        }

    def box(self, row: int, col: int, pad: float = 0.0) -> dict:
        """The rectangle around map (row, col), `pad` maps wider on every side."""
        x0 = self.col_start(col) - 0.5 - pad * self.width
        y0 = self.row_start(row) - 0.5 - pad * self.height
        return {
            "xref": "x",
            "yref": "y",
            "x0": x0,
            "x1": x0 + self.width * (1 + 2 * pad),
            "y0": y0,
            "y1": y0 + self.height * (1 + 2 * pad),
        }

    def frame(self, row: int, col: int, color: str) -> dict:
        """A thick rectangle just outside one map."""
        return {"type": "rect", **self.box(row, col, _FRAME), "line": {"color": color, "width": 5}}

    def _path(self, count: int, columns: int) -> str:
        boxes = [self.box(*divmod(i, columns)) for i in range(count)]
        return rectangles_path([(b["x0"], b["y0"], b["x1"], b["y1"]) for b in boxes])

    def outlines(self, count: int, columns: int) -> dict:
        """A thin grey edge around every map, as ONE path shape."""
        path = self._path(count, columns)
        return {"type": "path", "xref": "x", "yref": "y", "path": path, "line": _OUTLINE}

    def backgrounds(self, count: int, columns: int, color: str) -> dict:
        """Every map's area filled with `color` under the trace, as ONE path shape: its
        NaN cells (blocked by a mask) show it, the gutters stay white."""
        path = self._path(count, columns)
        return {
            "type": "path",
            "xref": "x",
            "yref": "y",
            "path": path,
            "fillcolor": color,
            "line": {"width": 0},
            "layer": "below",
        }


def _mark_roles(
    layout: dict, shapes: list[dict], tiles: _Tiles, role: str, values: np.ndarray
) -> dict:
    """Frame each map in the role's colour scale (into `shapes`) and write its value
    above the map (into `layout`); returns an invisible trace that carries the role's
    colour bar."""
    top = float(values.max()) if values.max() > 0 else 1.0
    colors = sample_colorscale(ROLE_SCALE, list(np.clip(values.ravel() / top, 0, 1)))
    layers, heads = values.shape
    for (layer, head), color in zip(np.ndindex(layers, heads), colors, strict=True):
        shapes.append(tiles.frame(layer, head, color))
        layout["annotations"].append(
            {
                "text": f"{values[layer, head]:.2f}",
                "xref": "x",
                "yref": "y",
                "x": tiles.col_middle(head),
                "y": tiles.box(layer, head, _FRAME)["y0"],
                "yanchor": "bottom",
                "showarrow": False,
                "font": {"size": FONT_SIZE - 3, "color": "#1A1A1A"},
            }
        )
    layout["coloraxis2"] = {
        "colorscale": _scale_pairs(ROLE_SCALE),
        "cmin": 0.0,
        "cmax": top,
        "colorbar": {
            "title": {"text": safe_label(role, 30)},
            "thickness": 14,
            "len": 0.35,
            "y": 0.0,
            "yanchor": "bottom",
            "x": 1.08,
        },
    }
    return {
        "type": "scatter",
        "x": [None],
        "y": [None],
        "mode": "markers",
        "marker": {"color": [0.0], "coloraxis": "coloraxis2"},
        "showlegend": False,
        "hoverinfo": "skip",
    }


def head_figure(
    weights: np.ndarray, tokens: list[str], layer: int, head: int, stretch: bool = False
) -> go.Figure:
    """One head's (n, n) map at full resolution (0-based layer and head), its title in
    the head's colour. `stretch` runs the colour scale up to this head's largest weight
    instead of 1, for long texts whose weights are spread thin."""
    n = len(tokens)
    data, layout = attention_grid_parts(
        np.asarray(weights)[None],
        tokens,
        titles=[f"layer {layer + 1} · head {head + 1}"],
        columns=1,
        panel_px=int(np.clip(18 * n, 480, 740)),
        head_colors=False,
        max_cells=n,
    )
    layout["annotations"][0]["font"] = {"color": head_color(head), "size": FONT_SIZE + 4}
    if stretch:
        top = float(np.max(weights))
        title = {"text": f"weight (0 to {top:.2f})"}
        layout["coloraxis"] = {
            **WEIGHT_AXIS,
            "cmax": top,
            "colorbar": {**WEIGHT_AXIS["colorbar"], "title": title},
        }
    if n > MAX_GRID_CELLS:
        layout["xaxis"].update(showticklabels=False, title={"text": "key (hover for the token)"})
        layout["yaxis"].update(showticklabels=False, title={"text": "query (hover for the token)"})
    return figure(data, layout)


# Signed values ----------------------------------------------------------------------


def _rows_px(n_rows: int) -> int:
    """Plot height for n token rows: 34 px a row, squeezed to at most 760 px."""
    return max(200, min(34 * n_rows, 760))


def _text_on(color: str) -> str:
    """Black or white, whichever reads better on the '#RRGGBB' background."""
    r, g, b = (int(color[i : i + 2], 16) for i in (1, 3, 5))
    return "#000000" if 0.299 * r + 0.587 * g + 0.114 * b > 140 else "#FFFFFF"


def _value_heatmap(z: np.ndarray, x: list, y: list[str], what: str, colors: dict) -> dict:
    """A signed heatmap with its own diverging colour scale (palette.signed_axis)."""
    return {
        "type": "heatmap",
        "z": np.round(np.asarray(z, dtype=np.float64), 4),
        "x": x,
        "y": y,
        **colors,
        "hovertemplate": f"token: %{{y}}<br>{what}: %{{x}}<br>value: %{{z:.3f}}<extra></extra>",
    }


def concat_figure(
    tokens: list[str], concat: np.ndarray, update: np.ndarray, n_heads: int
) -> go.Figure:
    """Left: each token's concatenated head outputs (n, h·d_head), one coloured band per
    head on top. Right: the same rows after W_O (n, d_model): the update to the stream."""
    labels = unique_labels(tokens)
    width = concat.shape[1]
    d_head = width // n_heads
    plot_px = _rows_px(len(tokens))
    columns = [f"head {c // d_head + 1} · {c % d_head + 1}" for c in range(width)]
    features = list(range(1, update.shape[1] + 1))
    colors = signed_axis(concat, update, title="value", on_trace=True)
    (left, right), layout = grid(2, 2, h_gap=0.06)
    data = [  # one colour bar for both: they share the scale
        left.place(_value_heatmap(concat, columns, labels, "column", colors)),
        right.place(_value_heatmap(update, features, labels, "feature", colors)),
    ]
    data[1]["showscale"] = False
    shapes = []
    for h in range(n_heads):
        span = {"x0": h * d_head - 0.5, "x1": (h + 1) * d_head - 0.5, "xref": left.x}
        shapes.append(  # the head's band above the rows
            {
                **span,
                "type": "rect",
                "yref": "paper",
                "y0": 1.0,
                "y1": 1.0 + BAND_PX / plot_px,
                "fillcolor": head_color(h),
                "line": {"width": 0},
                "label": {"text": str(h + 1), "font": {"color": _text_on(head_color(h))}},
            }
        )
        shapes.append(  # and its outline around the head's columns
            {
                **span,
                "type": "rect",
                "yref": left.y,
                "y0": -0.5,
                "y1": len(tokens) - 0.5,
                "line": {"color": head_color(h), "width": 2},
            }
        )
    rows = {"autorange": "reversed", "type": "category"}
    layout[left.xaxis].update(
        showticklabels=False,
        title={"text": f"concatenated heads:<br>{n_heads} × {d_head} = {width} numbers"},
    )  # two lines each: the two titles keep apart in a 1024-px window
    layout[right.xaxis].update(title={"text": f"× W_O → update:<br>{update.shape[1]} numbers"})
    layout[left.yaxis].update(rows, title={"text": "token"})
    layout[right.yaxis].update(rows, showticklabels=False)
    layout.update(
        shapes=shapes,
        height=plot_px + 40 + BAND_PX + 90,
        margin={"l": 10, "r": 10, "t": 40 + BAND_PX, "b": 90},
        font={"size": FONT_SIZE},
    )
    return figure(data, layout)


def hidden_figure(tokens: list[str], hidden: np.ndarray, activation: str) -> go.Figure:
    """The feed-forward hidden activations: tokens × d_ff units, signed scale."""
    labels = unique_labels(tokens)
    active = float((hidden > 0).mean())
    units = list(range(1, hidden.shape[1] + 1))
    colors = signed_axis(hidden, title="value", on_trace=True)
    data = [_value_heatmap(hidden, units, labels, "unit", colors)]
    layout = {
        "xaxis": {"title": {"text": f"hidden unit (d_ff = {hidden.shape[1]})"}},
        "yaxis": {"title": {"text": "token"}, "autorange": "reversed", "type": "category"},
        "height": _rows_px(len(tokens)) + 150,
        "margin": {**MARGIN, "t": 60},
        "font": {"size": FONT_SIZE},
    }
    title = f"{activation.upper()} hidden units: {100 * active:.0f} % of them > 0"
    return figure(data, titled(layout, title, share=0.5))


def slicing_figure(w_q: np.ndarray, title_chars: int = PAGE_TITLE_CHARS) -> go.Figure:
    """W_Q (h, d_model, d_head) as one d_model × h·d_head matrix, each head's column block
    under a bar of its colour (left), beside the block-diagonal matrix slicing would mean;
    `title_chars` as in grid.grid."""
    n_heads, d_model, d_head = w_q.shape
    whole, cut = stacked(w_q), stacked(sliced(w_q))
    custom = np.broadcast_to(np.arange(n_heads * d_head) // d_head + 1, whole.shape)
    titles = [
        "W_Q as it is: every head reads every coordinate",
        "If heads sliced the embedding (not what happens)",
    ]
    panels, layout = grid(2, 2, titles, h_gap=0.08, title_chars=title_chars)
    margin = titles_margin(layout)
    data, shapes, notes = [], [], []
    for panel, matrix in zip(panels, (whole, cut), strict=True):
        data.append(
            panel.place(
                {
                    "type": "heatmap",
                    "z": np.round(matrix, 3),
                    "customdata": custom,
                    "coloraxis": "coloraxis",
                    "hovertemplate": "input coordinate %{y}<br>head %{customdata}, column %{x}"
                    "<br>weight %{z:.3f}<extra></extra>",
                }
            )
        )
        for h in range(n_heads):
            x0, x1 = h * d_head - 0.5, (h + 1) * d_head - 0.5
            shapes.append(
                {
                    "type": "rect",
                    "x0": x0,
                    "x1": x1,
                    "y0": -0.5 - d_model * 0.06,
                    "y1": -0.5,
                    "fillcolor": head_color(h),
                    "line": {"width": 0},
                    "xref": panel.x,
                    "yref": panel.y,
                }
            )
            notes.append(
                {
                    "x": (x0 + x1) / 2,
                    "y": -0.5 - d_model * 0.03,
                    "text": f"head {h + 1}" if n_heads <= 8 else str(h + 1),
                    "showarrow": False,
                    "font": {"color": "white", "size": FONT_SIZE - 3},
                    "xref": panel.x,
                    "yref": panel.y,
                }
            )
            if h:
                shapes.append(_vertical_line(x0, panel, {"color": "#333333", "width": 1}))
        layout[panel.xaxis].update(
            title={"text": "column of W_Q"},  # short: two fit in half a page
            showgrid=False,
        )
        layout[panel.yaxis].update(autorange="reversed", showgrid=False)
    layout[panels[0].yaxis]["title"] = {"text": "input coordinate"}
    # The same rows on the right: numbered once, left (at 1024 px the right panel's
    # numbers ran into the left panel).
    layout[panels[1].yaxis]["showticklabels"] = False
    layout["annotations"] += notes
    layout.update(shapes=shapes, coloraxis=signed_axis(whole, title="weight"))
    return figure(data, framed_layout(layout, min(720, 260 + 6 * d_model), margin))


def _vertical_line(x: float, panel: Panel, line: dict) -> dict:
    """A line at x across the whole height of one panel."""
    return {
        "type": "line",
        "x0": x,
        "x1": x,
        "xref": panel.x,
        "y0": 0,
        "y1": 1,
        "yref": f"{panel.y} domain",
        "line": line,
    }


# Experiments ------------------------------------------------------------------------


def singular_value_chart(result: RankLimitResult) -> go.Figure:
    """Singular values of each fitted score matrix as a staircase: row d_head, column i;
    blank where σ_i is below 10⁻⁶ of the largest (rank ≤ d_head).

    The colour is log₁₀ σ counted from the power of ten just below the smallest σ drawn,
    so it never goes negative: orders of magnitude on a sequential scale, not a signed
    value. The colour bar and the hover give σ itself."""
    sv = result.singular_values
    tiny = sv <= 1e-6 * sv[:, :1]
    logs = np.log10(np.where(tiny, 1.0, sv))
    low, high = math.floor(logs[~tiny].min()), math.ceil(logs[~tiny].max())
    ticks = list(range(0, high - low + 1))
    index = np.arange(1, sv.shape[1] + 1)
    step = {"dtick": 1} if len(index) <= 20 else {}
    data = [
        {
            "type": "heatmap",
            "z": np.round(np.where(tiny, np.nan, logs - low), 3),
            "x": index,
            "y": result.d_heads,
            "customdata": np.round(sv, 3),
            "colorscale": get_colorscale("Viridis"),
            "colorbar": {
                "title": {"text": "log₁₀ σ"},
                "thickness": 14,
                "tickvals": ticks,
                "ticktext": [f"{low + t}".replace("-", "−") for t in ticks],
            },
            "hoverongaps": False,
            "hovertemplate": "d_head = %{y}<br>σ_%{x} = %{customdata}<extra></extra>",
            "xgap": 1,
            "ygap": 1,
        }
    ]
    layout = {
        "xaxis": {"title": {"text": "singular value index i"}, **step},
        "yaxis": {"title": {"text": "d_head"}, "autorange": "reversed", **step},
    }
    return figure(data, framed_layout(layout, 420))


def head_maps(comparison: Comparison) -> go.Figure:
    """Each trained head's weights for the query token '?' on one example: one block of
    rows per variant, one row per head (its colour on the left), one column per token."""
    keys = list(comparison.results)
    maps = {key: comparison.example_weights(key) for key in keys}
    labels = unique_labels(comparison.example_tokens)
    panels, layout = grid(
        len(keys),
        1,
        [comparison.results[key].variant.label for key in keys],
        v_gap=0.09,
        row_heights=[maps[key].shape[0] + 0.6 for key in keys],
    )
    data = []
    for panel, key in zip(panels, keys, strict=True):
        names = [f"head {h + 1}" for h in range(len(maps[key]))]
        data.append(
            panel.place(
                {
                    "type": "heatmap",
                    "z": np.round(maps[key], 4),
                    "x": labels,
                    "y": names,
                    "coloraxis": "coloraxis",
                    "xgap": 1,
                    "ygap": 1,
                    "hovertemplate": "%{y}: query ? → %{x}<br>weight %{z:.3f}<extra></extra>",
                }
            )
        )
        # Every axis categorical: tokens such as "5" must not turn an axis numeric.
        layout[panel.yaxis].update(autorange="reversed", showticklabels=False, type="category")
        layout[panel.xaxis]["type"] = "category"
        if not panel.bottom:  # the x axes share the bottom one's token labels
            layout[panel.xaxis].update(matches=panels[-1].x, showticklabels=False)
        layout["annotations"] += [
            {
                "x": -0.01,
                "xref": f"{panel.x} domain",
                "xanchor": "right",
                "y": name,
                "yref": panel.y,
                "text": f"■ {name} ",
                "showarrow": False,
                "font": {"color": head_color(h)},
            }
            for h, name in enumerate(names)
        ]
    layout[panels[-1].xaxis]["title"] = {"text": "key token (A:s and B:s are the targets)"}
    layout["coloraxis"] = WEIGHT_AXIS
    height = 130 + 45 * sum(len(m) + 1 for m in maps.values())
    return figure(data, framed_layout(layout, height, margin={"l": 110}))


def head_reads_figure(panels: list[tuple[str, np.ndarray]]) -> go.Figure:
    """Per named (d_ff, heads) share matrix: one panel of heads (rows) × hidden units
    (columns), each unit's column the share of its reading that each head's block gives;
    units ordered by their strongest head, then by how much it dominates."""
    rows = [np.asarray(shares).shape[1] + 2 for _, shares in panels]  # room per head
    cells, layout = grid(
        len(panels), 1, [safe_label(name, 80) for name, _ in panels], v_gap=0.16,
        row_heights=rows,
    )  # fmt: skip
    data = []
    for cell, (_, shares) in zip(cells, panels, strict=True):
        shares = np.asarray(shares, dtype=np.float64)
        favourite = shares.argmax(axis=1)
        order = np.lexsort((-shares.max(axis=1), favourite))
        heads = [f"head {h + 1}" for h in range(shares.shape[1])]
        data.append(
            cell.place(
                {
                    "type": "heatmap",
                    "z": np.round(shares[order].T, 4),
                    "y": heads,
                    "coloraxis": "coloraxis",
                    "hovertemplate": "%{y}'s block gives unit #%{x} %{z:.0%} of its "
                    "reading<extra></extra>",
                }
            )
        )
        layout[cell.xaxis].update(
            title={"text": f"hidden units ({shares.shape[0]}), by strongest head"},
            showticklabels=False,
        )
        layout[cell.yaxis].update(autorange="reversed", type="category", dtick=1)
    layout.update(
        coloraxis={
            "colorscale": _scale_pairs(ROLE_SCALE),
            "cmin": 0.0,
            "cmax": max(float(np.asarray(s).max()) for _, s in panels),
            "colorbar": {"title": {"text": "share"}, "thickness": 14, "tickformat": ".0%"},
        },
        height=sum(110 + 22 * np.asarray(s).shape[1] for _, s in panels) + 40,
        margin={**MARGIN, "t": 50},
        font={"size": FONT_SIZE},
    )
    return figure(data, layout)


def _scale_pairs(name: str) -> list[list]:
    """A named Plotly colour scale as explicit [position, colour] pairs (what Plotly's
    validation would turn the name into)."""
    return [list(pair) for pair in get_colorscale(name)]


# Which heads are needed -------------------------------------------------------------

_LAYER_HEAD_CELL_PX = 46  # one layer's row in the 6 × 12 views of heads


def _layer_head_layout(layers: int, heads: int, extra_px: int) -> dict:
    """The layout of a layers × heads chart: its axes, one row of cells per layer plus
    `extra_px` for titles and the colour bar."""
    return {
        **_layer_head_axes(layers, heads),
        "height": layers * _LAYER_HEAD_CELL_PX + extra_px,
        "margin": {**MARGIN, "l": 60, "t": 50},
        "font": {"size": FONT_SIZE},
        "plot_bgcolor": "white",
    }


def _layer_head_axes(layers: int, heads: int) -> dict:
    """Axes of a (layers × heads) view: heads along x, layer 1 at the top."""
    return {
        "xaxis": {
            "title": {"text": "head"},
            "tickvals": list(range(1, heads + 1)),
            "showgrid": False,
            "zeroline": False,
            "side": "top",
        },
        "yaxis": {
            "title": {"text": "layer"},
            "tickvals": list(range(1, layers + 1)),
            "autorange": "reversed",
            "showgrid": False,
            "zeroline": False,
        },
    }


def switches_figure(mask: np.ndarray) -> go.Figure:
    """The (layers, heads) 0/1 mask as a grid of squares: a head that is on in its
    head's colour, one that is off as a light grey outline."""
    layers, heads = np.shape(mask)
    layer, head = np.mgrid[1 : layers + 1, 1 : heads + 1]
    on = np.asarray(mask).ravel() > 0
    colors = [head_color(h - 1) if o else "white" for h, o in zip(head.ravel(), on, strict=True)]
    data = [
        {
            "type": "scatter",
            "x": head.ravel(),
            "y": layer.ravel(),
            "mode": "markers",
            "marker": {
                "symbol": "square",
                "size": 24,
                "color": colors,
                "line": {"color": [TOKEN_COLOR if o else BLOCKED_COLOR for o in on], "width": 1},
            },
            "customdata": np.where(on, "on", "off"),
            "hovertemplate": "layer %{y} · head %{x}: %{customdata}<extra></extra>",
            "showlegend": False,
        }
    ]
    return figure(data, _layer_head_layout(layers, heads, extra_px=90))


def importance_figure(
    values: np.ndarray, on: np.ndarray, title: str, cell_format: str
) -> go.Figure:
    """A (layers, heads) importance map on the diverging scale (blue = the score drops
    when the head is off, red = it rises); heads already off are left blank. Each cell
    shows its value (d3 `cell_format`, e.g. ".3f")."""
    values = np.asarray(values, dtype=np.float64)
    layers, heads = values.shape
    z = np.where(on, values, np.nan)
    shown = z if np.any(on) else np.zeros_like(values)
    data = [
        {
            "type": "heatmap",
            "z": np.round(z, 6),
            "x": list(range(1, heads + 1)),
            "y": list(range(1, layers + 1)),
            **signed_axis(shown[np.isfinite(shown)], title=title, on_trace=True),
            "xgap": 2,
            "ygap": 2,
            "hoverongaps": False,
            "texttemplate": f"%{{z:{cell_format}}}",
            "textfont": {"size": FONT_SIZE - 4},
            "hovertemplate": f"layer %{{y}} · head %{{x}}<br>{title}: %{{z:{cell_format}}}"
            "<extra></extra>",
        }
    ]
    return figure(data, _layer_head_layout(layers, heads, extra_px=100))


def rollout_figure(rows: np.ndarray, tokens: list[str], focus: int) -> go.Figure:
    """Two maps on the shared 0–1 weight scale, layers × key tokens: the focus token's
    raw attention (mean over heads) in each layer, and its rollout in each layer. The
    focus token's own column is framed."""
    kinds, layers, n = np.shape(rows)
    labels = unique_labels(tokens)
    focus_label = labels[focus]
    panels, layout = grid(
        kinds,
        1,
        [
            f"raw attention of “{focus_label}” (mean over heads), layer by layer",
            f"rollout of “{focus_label}”: where its vector comes from",
        ],
        v_gap=0.16,
    )
    names = [f"layer {layer + 1}" for layer in range(layers)]
    data, shapes = [], []
    for panel, values, what in zip(panels, rows, ("raw attention", "rollout"), strict=True):
        trace = {
            "type": "heatmap",
            "z": np.round(np.asarray(values, dtype=np.float64), 4),
            "x": labels,
            "y": names,
            "coloraxis": "coloraxis",
            "xgap": 1 if n <= 32 else 0,
            "ygap": 1,
            "hovertemplate": f"%{{y}} · {what}<br>{focus_label} → %{{x}}: %{{z:.3f}}"
            "<extra></extra>",
        }
        if n <= 16:
            trace.update(texttemplate="%{z:.2f}", textfont={"size": FONT_SIZE - 4})
        data.append(panel.place(trace))
        layout[panel.xaxis].update(type="category", showticklabels=n <= MAX_GRID_CELLS)
        layout[panel.yaxis].update(type="category", autorange="reversed")
        shapes.append(
            {
                "type": "rect",
                "xref": panel.x,
                "yref": f"{panel.y} domain",
                "x0": focus - 0.5,
                "x1": focus + 0.5,
                "y0": 0,
                "y1": 1,
                "line": {"color": FOCUS_COLOR, "width": 2},
            }
        )
    layout.update(
        shapes=shapes,
        coloraxis=WEIGHT_AXIS,
        height=2 * (layers * 34 + 60) + 120,
        margin={**MARGIN, "l": 80, "t": 40, "b": 30},
        font={"size": FONT_SIZE},
        plot_bgcolor="white",
    )
    return figure(data, layout)
