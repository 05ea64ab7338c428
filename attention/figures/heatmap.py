"""Attention heatmaps: query rows × key columns, one shared 0–1 colour scale, token
labels, hover with weight and raw score; cells a mask forbids are drawn grey.

All heads go into ONE figure of heatmap traces (not one chart per head, not one shape
per cell): that is what keeps 72 heads fast in the browser.
"""

from __future__ import annotations

import numpy as np
import plotly.graph_objects as go

from attention.figures.grid import figure, grid
from attention.figures.palette import BLOCKED_COLOR, FONT_SIZE, WEIGHT_AXIS, head_color
from attention.figures.text import safe_label, unique_labels
from attention.pooling import pool_attention, pool_blocks

MAX_GRID_CELLS = 64  # longer maps are pooled to this many blocks per side


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
    scores: np.ndarray | None = None,
    allowed: np.ndarray | None = None,
    titles: list[str] | None = None,
    columns: int = 4,
    query_side: str = "query",
    key_side: str = "key",
    panel_px: int = 320,
    head_colors: bool = True,
    max_cells: int = MAX_GRID_CELLS,
) -> go.Figure:
    """Small multiples of (h, n_q, n_k) attention maps in one figure, head 1 first.

    `allowed` is the boolean mask broadcastable to the weights (True = may attend).
    Titles are coloured with each head's colour when `head_colors`. Every panel shares
    the tokens, so they are labelled once, on the outer edges of the grid. Square maps
    longer than `max_cells` are pooled into blocks (see attention.pooling); their hover
    then shows the pooled weight only.
    """
    weights = np.asarray(weights)
    n_heads = weights.shape[0]
    key_tokens = query_tokens if key_tokens is None else key_tokens
    if key_tokens is query_tokens and len(query_tokens) > max_cells:
        weights = pool_attention(weights, max_cells)
        scores = allowed = None
        q_labels = k_labels = block_labels(query_tokens, max_cells)
    else:
        q_labels, k_labels = unique_labels(query_tokens), unique_labels(key_tokens)
    titles = titles or [f"head {h + 1}" for h in range(n_heads)]
    colors = [head_color(h) if head_colors else None for h in range(n_heads)]
    panels, layout = grid(n_heads, columns, titles, colors)
    mask = None if allowed is None else np.broadcast_to(allowed, weights.shape)
    tick_font = {"size": max(9, FONT_SIZE - 2 - len(k_labels) // 12)}
    data = []
    for panel in panels:
        h = panel.index
        data.append(
            panel.place(
                heatmap_trace(
                    weights[h],
                    q_labels,
                    k_labels,
                    None if scores is None else scores[h],
                    None if mask is None else mask[h],
                    name=titles[h],
                )
            )
        )
        bottom = panel.bottom
        layout[panel.xaxis].update(
            type="category",
            tickangle=-60,
            tickfont=tick_font,
            showgrid=False,
            showticklabels=bottom,
            **({"title": {"text": key_side}} if bottom else {}),
        )
        layout[panel.yaxis].update(
            type="category",
            autorange="reversed",
            tickfont=tick_font,
            showgrid=False,
            showticklabels=panel.col == 0,
            **({"title": {"text": query_side}} if panel.col == 0 else {}),
        )
    rows = panels[-1].row + 1
    layout.update(
        coloraxis=WEIGHT_AXIS,
        plot_bgcolor=BLOCKED_COLOR if mask is not None and not mask.all() else "white",
        height=rows * panel_px + 120,
        margin={"l": 10, "r": 10, "t": 50, "b": 10},
        font={"size": FONT_SIZE},
    )
    return figure(data, layout)


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
