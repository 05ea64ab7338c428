"""The attention-map view: small multiples of attention maps (one heatmap trace for the
whole grid), one head large, and BertViz-style lines; reused by the other views that show
maps (head spaces, the block, the rank limit, the real model's large map).

Attention weights share one 0–1 colour axis (palette.WEIGHT_AXIS). A grid of maps is ONE
heatmap trace on one pair of axes (grid.tiled: the maps side by side with NaN gutters),
not one subplot or chart per map and not one shape per cell: a toy grid of 8 heads is
~10 % faster to redraw than 8 subplots (benchmarks/bench_interaction.py). Long
self-attention maps come in already pooled by the caller (attention.geometry.pooling,
labelled by `block_labels`): the builders only draw.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
import plotly.graph_objects as go

from attention.figures.base.checks import check_shape
from attention.figures.base.grid import (
    PAGE_TITLE_CHARS,
    TITLE_LINE_PX,
    figure,
    panel_title_chars,
    title_lines,
    wrapped_title,
)
from attention.figures.base.map_tiles import MapTiles
from attention.figures.base.palette import (
    BLOCKED_COLOR,
    FONT_SIZE,
    TOKEN_COLOR,
    WEIGHT_AXIS,
    head_color,
)
from attention.figures.base.phone import BAR_BELOW
from attention.figures.base.segments import weighted_segments
from attention.figures.base.text import safe_label, unique_labels
from attention.geometry.pooling import pool_blocks

MAX_GRID_CELLS = 64  # callers pool longer maps to this many blocks per side


LARGE_MAP_CELLS = 256  # a map drawn large (~520 px): callers pool longer ones, ~2 px a block


_MAP_GUTTER = 0.12  # space between two maps of a row, per map width


_TITLE_PX = 30  # room for a map's one-line title above it


_BAR_BELOW = {  # "weight" beside the bar: a title on top of a horizontal bar is drawn over it
    **BAR_BELOW,
    "len": 160,  # px, the title's share included
    "title": {**WEIGHT_AXIS["colorbar"]["title"], "side": "right"},
}


_POOLED_TICKS = 8  # token numbers along each side of a pooled map


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
    square_cells: bool = False,
    title_chars: int = PAGE_TITLE_CHARS,
    colorbar_below: bool = False,
    block_starts: Sequence[int] | None = None,
) -> tuple[list[dict], dict]:
    """The traces and layout of `attention_grid`, for figures that build on it.

    Every map is a tile of ONE heatmap trace (grid.tiled: NaN gutters), in rows of
    `columns`, with its title above it, in the head's colour when `head_colors`: one
    pair of axes instead of one per map is what the browser draws fastest. `allowed` is
    the boolean mask broadcastable to the weights (True = may attend); blocked cells are
    grey. Every map shares the tokens, so they are labelled once, on the outer edges:
    keys under each column's last map, queries left of the first column. Pooled
    self-attention maps (attention.geometry.pooling.pool_attention) come with
    `block_starts`, each block's first token number, and their blocks' labels
    (`block_labels`) as the tokens: their axes then show the first token number of every
    few blocks (a label per block was an unreadable smear). `square_cells` keeps every
    cell square, for a map drawn large. Titles wider than their map's share of
    `title_chars` (the characters across the figure at its narrowest: PAGE_TITLE_CHARS
    at full page width) break into lines.
    `colorbar_below` lays the colour bar along the bottom, leaving the width to the maps
    of a grid drawn in a column.
    """
    key_tokens = query_tokens if key_tokens is None else key_tokens
    check_shape("weights", weights, (None, len(query_tokens), len(key_tokens)))
    if scores is not None:
        check_shape("scores", scores, np.shape(weights))
    weights = np.asarray(weights)
    n_heads = weights.shape[0]
    ticks: dict = {}  # every label, or for pooled maps the numbers of a few blocks
    if block_starts is not None:
        check_shape("block_starts", np.asarray(block_starts), (len(query_tokens),))
        q_labels, k_labels = list(query_tokens), list(key_tokens)
        step = math.ceil(len(block_starts) / _POOLED_TICKS)
        ticks = {"shown": [str(s) for s in block_starts], "step": step}
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
    tiles = MapTiles(n_q, n_k, row_gap, col_gap=max(1, round(_MAP_GUTTER * n_k)))
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


def attention_lines(
    weights: np.ndarray,
    query_tokens: list[str],
    key_tokens: list[str],
    heads: list[int],
    focus: int | None = None,
    query_side: str = "queries",
    key_side: str = "keys",
) -> go.Figure:
    """BertViz-style lines: queries in a left column, keys in a right one, one line per
    (query, key) pair and head, coloured by head, wide and opaque by weight. With
    `focus`, only that query's lines are drawn."""
    check_shape("weights", weights, (None, len(query_tokens), len(key_tokens)))
    n_q, n_k = len(query_tokens), len(key_tokens)
    left_y, right_y = -np.arange(n_q, dtype=float), -np.arange(n_k, dtype=float)
    rows = [focus] if focus is not None else list(range(n_q))
    q_idx, k_idx = np.meshgrid(rows, np.arange(n_k), indexing="ij")
    q_idx, k_idx = q_idx.ravel(), k_idx.ravel()
    starts = np.column_stack([np.zeros(q_idx.size), left_y[q_idx]])
    ends = np.column_stack([np.ones(k_idx.size), right_y[k_idx]])
    data = []
    for h in heads:
        data += weighted_segments(
            starts,
            ends,
            weights[h][q_idx, k_idx],
            head_color(h),
            f"head {h + 1}",
            showlegend=True,
        )
    q_labels = [safe_label(t) for t in query_tokens]
    if focus is not None:
        q_labels[focus] = f"<b>{q_labels[focus]}</b>"
    columns = (
        (0.0, left_y, q_labels, query_side, "middle left"),
        (1.0, right_y, [safe_label(t) for t in key_tokens], key_side, "middle right"),
    )
    for x, y, labels, side, position in columns:
        data.append(
            {
                "type": "scatter",
                "x": np.full(len(y), x),
                "y": y,
                "mode": "markers+text",
                "text": labels,
                "textposition": position,
                "marker": {"size": 7, "color": TOKEN_COLOR},
                "hovertemplate": "%{text}<extra>" + side + "</extra>",
                "showlegend": False,
            }
        )
    layout = {
        "height": max(360, 26 * max(n_q, n_k) + 120),
        "font": {"size": FONT_SIZE},
        "plot_bgcolor": "white",
        "xaxis": {
            "range": [-0.45, 1.45],
            "showgrid": False,
            "zeroline": False,
            "tickvals": [0, 1],
            "ticktext": [query_side, key_side],
            "side": "top",
        },
        "yaxis": {
            "showgrid": False,
            "zeroline": False,
            "showticklabels": False,
            "range": [-max(n_q, n_k) + 0.5, 0.8],
            "title": {"text": "position"},
        },
        "legend": {"title": {"text": "head"}},
        "margin": {"l": 10, "r": 10, "t": 40, "b": 10},
    }
    return figure(data, layout)
