""" "Why several heads?": the rank limit of one head: best error against d_head, the
singular values of the fitted score matrices, the fitted patterns."""

from __future__ import annotations

import math
from collections.abc import Mapping

import numpy as np
import plotly.graph_objects as go
from plotly.colors import get_colorscale

from attention.experiments.rank_limit import RankLimitResult
from attention.figures.attention_maps import attention_grid
from attention.figures.base.checks import check_shape
from attention.figures.base.grid import (
    figure,
    framed_layout,
    note_above,
    vertical_line,
)
from attention.figures.base.palette import (
    LAYOUT_STYLES,
)


def rank_error_chart(result: RankLimitResult, marks: Mapping[str, int]) -> go.Figure:
    """Best error against d_head, with vertical lines at the `marks` (label → d_head)."""
    fits = (len(result.d_heads),)
    check_shape("result.error", result.error, fits)
    check_shape("result.misplaced", result.misplaced, fits)
    data = [
        {
            "type": "scatter",
            "x": result.d_heads,
            "y": result.error,
            "mode": "lines+markers",
            "line": {"color": "#000000", "width": 3},
            "marker": {"size": 9},
            "customdata": result.misplaced * 100,
            "name": "best fit",
            "hovertemplate": "d_head = %{x}<br>KL error %{y:.4f} nats<br>"
            "misplaced attention %{customdata:.1f} %<extra></extra>",
        }
    ]
    shapes, notes = [], []
    for (label, d_head), (color, dash) in zip(marks.items(), LAYOUT_STYLES[1:], strict=False):
        if 1 <= d_head <= result.d_heads[-1]:
            shapes.append(vertical_line(d_head, {"color": color, "dash": dash, "width": 2}))
            notes.append(note_above(d_head, label, font={"color": color}))
    layout = {
        "shapes": shapes,
        "annotations": notes,
        "xaxis": {
            "title": {"text": "d_head"},
            **({"dtick": 1} if len(result.d_heads) <= 20 else {}),
        },
        "yaxis": {"title": {"text": "error: mean KL(target ‖ fit), nats"}, "rangemode": "tozero"},
    }
    return figure(data, framed_layout(layout, 400, showlegend=False))


def singular_value_chart(result: RankLimitResult) -> go.Figure:
    """Singular values of each fitted score matrix as a staircase: row d_head, column i;
    blank where σ_i is below 10⁻⁶ of the largest (rank ≤ d_head).

    The colour is log₁₀ σ counted from the power of ten just below the smallest σ drawn,
    so it never goes negative: orders of magnitude on a sequential scale, not a signed
    value. The colour bar and the hover give σ itself."""
    check_shape("result.singular_values", result.singular_values, (len(result.d_heads), None))
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


def pattern_maps(
    result: RankLimitResult, d_heads: list[int]
) -> tuple[list[str], list[str], np.ndarray]:
    """The maps `rank_patterns` draws: their titles, the token names t0, t1, … and the
    target followed by the fitted patterns at the chosen d_heads (those in range)."""
    n = len(result.target)
    check_shape("result.target", result.target, (n, n))
    check_shape("result.fitted", result.fitted, (len(result.d_heads), n, n))
    chosen = [d for d in dict.fromkeys(d_heads) if 1 <= d <= result.d_heads[-1]]
    maps = np.stack([result.target, *(result.fitted[d - 1] for d in chosen)])
    titles = ["target"] + [f"d_head = {d}" for d in chosen]
    return titles, [f"t{i}" for i in range(n)], maps


def rank_patterns(
    result: RankLimitResult, d_heads: list[int], columns: int | None = None
) -> go.Figure:
    """The target pattern beside the fitted patterns at the chosen d_heads, all in one
    row unless `columns` says how many a row holds (one on a phone)."""
    titles, tokens, maps = pattern_maps(result, d_heads)
    return attention_grid(
        maps,
        tokens,
        titles=titles,
        columns=columns or len(titles),
        head_colors=False,
        panel_px=300,
    )
