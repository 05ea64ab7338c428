"""Attention heatmaps: query rows × key columns, one shared 0–1 colour scale, token
labels, hover with weight and raw score; cells a mask forbids are drawn grey.

All heads go into ONE figure of go.Heatmap traces (not one chart per head, not one
shape per cell): that is what keeps 72 heads fast in the browser.
"""

from __future__ import annotations

import math

import numpy as np
import plotly.graph_objects as go
from plotly.subplots import make_subplots

from attention.figures.palette import BLOCKED_COLOR, FONT_SIZE, WEIGHT_SCALE, head_color
from attention.figures.text import unique_labels


def heatmap_trace(
    weights: np.ndarray,
    query_labels: list[str],
    key_labels: list[str],
    scores: np.ndarray | None = None,
    allowed: np.ndarray | None = None,
    name: str = "",
) -> go.Heatmap:
    """One (n_q, n_k) map on the shared colour axis; blocked cells become gaps."""
    z = np.array(weights, dtype=np.float64)
    if allowed is not None:
        z[~np.broadcast_to(allowed, z.shape)] = np.nan
    hover = "query: %{y}<br>key: %{x}<br>weight: %{z:.3f}"
    custom = None
    if scores is not None:
        custom = np.round(np.asarray(scores, dtype=np.float64), 4)
        hover += "<br>score q·k/√d: %{customdata:.3f}"
    return go.Heatmap(
        z=np.round(z, 5),
        x=key_labels,
        y=query_labels,
        customdata=custom,
        coloraxis="coloraxis",
        hoverongaps=False,
        hovertemplate=hover + f"<extra>{name}</extra>",
        name=name,
        xgap=1 if len(key_labels) <= 32 else 0,
        ygap=1 if len(query_labels) <= 32 else 0,
    )


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
) -> go.Figure:
    """Small multiples of (h, n_q, n_k) attention maps in one figure, head 1 first.

    `allowed` is the boolean mask broadcastable to the weights (True = may attend).
    Titles are coloured with each head's colour when `head_colors`.
    """
    weights = np.asarray(weights)
    n_heads = weights.shape[0]
    key_tokens = query_tokens if key_tokens is None else key_tokens
    q_labels, k_labels = unique_labels(query_tokens), unique_labels(key_tokens)
    titles = titles or [f"head {h + 1}" for h in range(n_heads)]
    columns = max(1, min(columns, n_heads))
    rows = math.ceil(n_heads / columns)
    fig = make_subplots(
        rows=rows,
        cols=columns,
        subplot_titles=titles,
        horizontal_spacing=0.03,
        vertical_spacing=min(0.12, 0.3 / rows),
    )
    mask = None if allowed is None else np.broadcast_to(allowed, weights.shape)
    for h in range(n_heads):
        row, col = divmod(h, columns)
        fig.add_trace(
            heatmap_trace(
                weights[h],
                q_labels,
                k_labels,
                None if scores is None else scores[h],
                None if mask is None else mask[h],
                name=titles[h],
            ),
            row=row + 1,
            col=col + 1,
        )
    if head_colors:
        for h, annotation in enumerate(fig.layout.annotations[:n_heads]):
            annotation.font = {"color": head_color(h), "size": FONT_SIZE + 2}
    tick_font = {"size": max(9, FONT_SIZE - 2 - len(k_labels) // 12)}
    fig.update_xaxes(type="category", tickangle=-60, tickfont=tick_font, showgrid=False)
    fig.update_yaxes(type="category", autorange="reversed", tickfont=tick_font, showgrid=False)
    # Every panel shares the tokens: label them once, on the outer edges of the grid.
    for h in range(n_heads):
        row, col = divmod(h, columns)
        last_in_column = h + columns >= n_heads
        fig.update_xaxes(showticklabels=last_in_column, row=row + 1, col=col + 1)
        fig.update_yaxes(showticklabels=col == 0, row=row + 1, col=col + 1)
        if last_in_column:
            fig.update_xaxes(title_text=key_side, row=row + 1, col=col + 1)
    fig.update_yaxes(title_text=query_side, col=1)
    fig.update_layout(
        coloraxis={
            "colorscale": WEIGHT_SCALE,
            "cmin": 0.0,
            "cmax": 1.0,
            "colorbar": {"title": {"text": "weight"}, "thickness": 14},
        },
        plot_bgcolor=BLOCKED_COLOR if mask is not None and not mask.all() else "white",
        height=rows * panel_px + 120,
        margin={"l": 10, "r": 10, "t": 50, "b": 10},
        font={"size": FONT_SIZE},
    )
    return fig
