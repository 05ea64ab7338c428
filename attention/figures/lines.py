"""Many line segments whose width and opacity carry a weight, drawn as a few traces.

Plotly gives a whole trace one width and one colour, so segments are grouped into a
handful of weight levels (one trace each, segments separated by None). That keeps a
64-token, 16-head picture at ~100 traces instead of 65,000.
"""

from __future__ import annotations

import numpy as np
import plotly.graph_objects as go

from attention.figures.grid import figure
from attention.figures.palette import FONT_SIZE, TOKEN_COLOR, head_color, with_alpha
from attention.figures.text import safe_label

LEVELS = 6
MIN_WEIGHT = 0.02  # segments lighter than this are not drawn


def weighted_segments(
    starts: np.ndarray,
    ends: np.ndarray,
    weights: np.ndarray,
    color: str,
    name: str,
    max_width: float = 9.0,
    legendgroup: str | None = None,
    showlegend: bool = False,
) -> list[dict]:
    """Traces for segments starts[i] → ends[i] (arrays (m, 2)) with weights in [0, 1]:
    heavier segments are wider and more opaque. Hover shows each segment's weight."""
    starts, ends = np.asarray(starts, float), np.asarray(ends, float)
    weights = np.asarray(weights, float)
    level = np.ceil(np.clip(weights, 0, 1) * LEVELS).astype(int)
    traces = []
    for lvl in range(1, LEVELS + 1):
        pick = np.flatnonzero((level == lvl) & (weights >= MIN_WEIGHT))
        if pick.size == 0:
            continue
        xs = np.column_stack([starts[pick, 0], ends[pick, 0], np.full(pick.size, np.nan)])
        ys = np.column_stack([starts[pick, 1], ends[pick, 1], np.full(pick.size, np.nan)])
        share = lvl / LEVELS
        traces.append(
            {
                "type": "scatter",
                "x": xs.ravel(),
                "y": ys.ravel(),
                "mode": "lines",
                "line": {"color": with_alpha(color, 0.2 + 0.8 * share), "width": max_width * share},
                "hoverinfo": "skip",
                "name": name,
                "legendgroup": legendgroup or name,
                "showlegend": showlegend and not traces,
            }
        )
    return traces


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
