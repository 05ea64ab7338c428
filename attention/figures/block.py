"""Figures for the block around attention: the concatenated heads feeding W_O, the
residual stream's norm beside each sublayer's update, the feed-forward activations,
rank collapse against depth, and a cross-attention head's queries and keys together.

Signed values (head outputs, activations) share one diverging scale centred on 0;
the residual stream is light grey and the updates dark grey, so head colours keep
meaning "this head" only. Built from plain dicts like the other figure modules.
"""

from __future__ import annotations

import math

import numpy as np
import plotly.graph_objects as go

from attention.figures.grid import figure, grid
from attention.figures.lines import weighted_segments
from attention.figures.palette import (
    FONT_SIZE,
    KEY_SYMBOL,
    QUERY_SYMBOL,
    TOKEN_COLOR,
    head_color,
    with_alpha,
)
from attention.figures.text import safe_label, unique_labels
from attention.projection import JointLayout

VALUE_SCALE = [  # ColorBrewer RdBu, diverging and colour-blind-safe: blue < 0 < red
    [0.0, "#2166AC"],
    [0.25, "#92C5DE"],
    [0.5, "#F7F7F7"],
    [0.75, "#F4A582"],
    [1.0, "#B2182B"],
]
STREAM_COLOR = "#BDBDBD"
UPDATE_COLOR = "#333333"
NO_RESIDUAL_COLOR = "#888888"
FLOAT64_FLOOR = 2.2e-16
BAND_PX = 26  # height of the head bands above the concatenated heads
MARGIN = {"l": 10, "r": 10, "t": 50, "b": 10}


def _rows_px(n_rows: int) -> int:
    """Plot height for n token rows: 34 px a row, squeezed to at most 760 px."""
    return max(200, min(34 * n_rows, 760))


def _text_on(color: str) -> str:
    """Black or white, whichever reads better on the '#RRGGBB' background."""
    r, g, b = (int(color[i : i + 2], 16) for i in (1, 3, 5))
    return "#000000" if 0.299 * r + 0.587 * g + 0.114 * b > 140 else "#FFFFFF"


def _symmetric_limit(*arrays: np.ndarray) -> float:
    top = max(float(np.abs(a).max()) for a in arrays)
    return top if top > 0 else 1.0


def _value_heatmap(z: np.ndarray, x: list, y: list[str], what: str, limit: float) -> dict:
    """A signed heatmap on the shared diverging scale, symmetric about 0."""
    return {
        "type": "heatmap",
        "z": np.round(np.asarray(z, dtype=np.float64), 4),
        "x": x,
        "y": y,
        "colorscale": VALUE_SCALE,
        "zmin": -limit,
        "zmax": limit,
        "zmid": 0.0,
        "colorbar": {"title": {"text": "value"}, "thickness": 14},
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
    limit = _symmetric_limit(concat, update)
    plot_px = _rows_px(len(tokens))
    columns = [f"head {c // d_head + 1} · {c % d_head + 1}" for c in range(width)]
    (left, right), layout = grid(2, 2, h_gap=0.06)
    data = [
        left.place(_value_heatmap(concat, columns, labels, "column", limit)),
        right.place(
            {
                **_value_heatmap(
                    update, list(range(1, update.shape[1] + 1)), labels, "feature", limit
                ),
                "showscale": False,
            }
        ),
    ]
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
        title={"text": f"concatenated heads: {n_heads} × {d_head} = {width} numbers"},
    )
    layout[right.xaxis].update(title={"text": f"× W_O → update: {update.shape[1]} numbers"})
    layout[left.yaxis].update(rows, title={"text": "token"})
    layout[right.yaxis].update(rows, showticklabels=False)
    layout.update(
        shapes=shapes,
        height=plot_px + 40 + BAND_PX + 90,
        margin={"l": 10, "r": 10, "t": 40 + BAND_PX, "b": 90},
        font={"size": FONT_SIZE},
    )
    return figure(data, layout)


def stream_update_figure(
    tokens: list[str],
    sublayers: list[str],
    stream_norms: np.ndarray,
    update_norms: np.ndarray,
) -> go.Figure:
    """One row per sublayer: for every token, ‖residual stream‖ entering the sublayer
    (light) beside ‖update‖ the sublayer adds to it (dark); hover gives the ratio."""
    labels = unique_labels(tokens)
    panels, layout = grid(len(sublayers), 1, titles=list(sublayers))
    data = []
    for panel, name, stream, update in zip(
        panels, sublayers, stream_norms, update_norms, strict=True
    ):
        ratio = np.divide(update, stream, out=np.zeros_like(update), where=stream > 0)
        custom = np.stack([stream, update, ratio], axis=1).round(4)
        hover = (
            f"token: %{{x}}<br>{name}<br>‖stream‖: %{{customdata[0]:.3f}}"
            "<br>‖update‖: %{customdata[1]:.3f}<br>‖update‖ / ‖stream‖: %{customdata[2]:.3f}"
            "<extra></extra>"
        )
        for values, label, color in (
            (stream, "‖residual stream‖ before", STREAM_COLOR),
            (update, "‖update‖ added", UPDATE_COLOR),
        ):
            data.append(
                panel.place(
                    {
                        "type": "bar",
                        "x": labels,
                        "y": np.round(values, 4),
                        "name": label,
                        "marker": {"color": color},
                        "customdata": custom,
                        "hovertemplate": hover,
                        "legendgroup": label,
                        "showlegend": panel.index == 0,
                    }
                )
            )
        layout[panel.xaxis].update(
            type="category",
            tickangle=-45,
            showticklabels=panel.bottom,
            **({"title": {"text": "token"}} if panel.bottom else {}),
        )
        layout[panel.yaxis].update(title={"text": "norm"}, rangemode="tozero")
    layout.update(
        barmode="group",
        bargap=0.25,
        height=190 * len(sublayers) + 170,
        legend={"orientation": "h", "x": 0, "y": 0.99, "yanchor": "top", "yref": "container"},
        margin={"l": 10, "r": 10, "t": 80, "b": 10},
        font={"size": FONT_SIZE},
    )
    return figure(data, layout)


def hidden_figure(tokens: list[str], hidden: np.ndarray, activation: str) -> go.Figure:
    """The feed-forward hidden activations: tokens × d_ff units, signed scale."""
    labels = unique_labels(tokens)
    active = float((hidden > 0).mean())
    units = list(range(1, hidden.shape[1] + 1))
    data = [_value_heatmap(hidden, units, labels, "unit", _symmetric_limit(hidden))]
    layout = {
        "title": {"text": f"{activation.upper()} hidden units: {100 * active:.0f} % of them > 0"},
        "xaxis": {"title": {"text": f"hidden unit (d_ff = {hidden.shape[1]})"}},
        "yaxis": {"title": {"text": "token"}, "autorange": "reversed", "type": "category"},
        "height": _rows_px(len(tokens)) + 150,
        "margin": {**MARGIN, "t": 60},
        "font": {"size": FONT_SIZE},
    }
    return figure(data, layout)


def rank_collapse_figure(
    curves: list[tuple[str, bool, bool, np.ndarray]], picked_depth: int | None = None
) -> go.Figure:
    """Distance from rank 1 against depth, log scale; `curves` holds (label, residual,
    feed_forward, distances per depth starting at depth 0). With the residual: dark,
    solid; without: grey, dashed; circles mark the runs with a feed-forward. Exact
    values in the hover; values below float64's rounding are drawn just under it."""
    data = []
    for label, residual, feed_forward, distances in curves:
        distances = np.asarray(distances, dtype=np.float64)
        data.append(
            {
                "type": "scatter",
                "x": np.arange(len(distances)),
                "y": np.maximum(distances, FLOAT64_FLOOR / 10),  # an exact 0 has no log
                "customdata": distances,
                "name": label,
                "mode": "lines+markers" if feed_forward else "lines",
                "line": {
                    "color": UPDATE_COLOR if residual else NO_RESIDUAL_COLOR,
                    "dash": "solid" if residual else "dash",
                    "width": 4 if feed_forward else 3,
                },
                "marker": {"size": 7},
                "hovertemplate": f"{label}<br>depth %{{x}}<br>distance %{{customdata:.2e}}"
                "<extra></extra>",
            }
        )
    floor = {"color": NO_RESIDUAL_COLOR, "width": 1, "dash": "dot"}
    shapes = [
        {"type": "line", "xref": "paper", "x0": 0, "x1": 1, "y0": FLOAT64_FLOOR,
         "y1": FLOAT64_FLOOR, "line": floor},
    ]  # fmt: skip
    if picked_depth is not None:
        shapes.append(
            {"type": "line", "yref": "paper", "y0": 0, "y1": 1, "x0": picked_depth,
             "x1": picked_depth, "line": {"color": TOKEN_COLOR, "width": 1}}
        )  # fmt: skip
    layout = {
        "shapes": shapes,
        "annotations": [
            {  # annotations on a log axis take log10 of the value
                "x": 1,
                "xref": "paper",
                "y": math.log10(FLOAT64_FLOOR),
                "text": "float64 rounding: identical tokens",
                "showarrow": False,
                "xanchor": "right",
                "yanchor": "top",
                "font": {"color": NO_RESIDUAL_COLOR},
            }
        ],
        "xaxis": {"title": {"text": "depth (layers stacked)"}, "dtick": 2},
        "yaxis": {
            "title": {"text": "distance from rank 1, ‖X − 1x̄ᵀ‖ / ‖X‖"},
            "type": "log",
            "exponentformat": "power",
            "range": [math.log10(FLOAT64_FLOOR) - 1.2, 0.3],
        },
        "legend": {"orientation": "h", "y": -0.22, "x": 0},
        "height": 520,
        "margin": {**MARGIN, "t": 30},
        "font": {"size": FONT_SIZE},
    }
    return figure(data, layout)


def collapse_pca_figure(
    tokens: list[str], panels: list[tuple[str, np.ndarray]], depth: int, columns: int = 2
) -> go.Figure:
    """The tokens at one depth, one panel per stack variant, PCA in units of the
    tokens' RMS norm on identical axes: collapsed tokens pile onto one point."""
    labels = [safe_label(t) for t in tokens]
    titles = [t for t, _ in panels]
    cells, layout = grid(len(panels), columns, titles, h_gap=0.1, equal_aspect=True)
    reach = max(0.05, *(float(np.abs(c).max()) for _, c in panels)) * 1.2
    data = []
    for cell, (title, coords) in zip(cells, panels, strict=True):
        data.append(
            cell.place(
                {
                    "type": "scatter",
                    "x": np.round(coords[:, 0], 5),
                    "y": np.round(coords[:, 1], 5),
                    "mode": "markers+text" if len(tokens) <= 16 else "markers",
                    "text": labels,
                    "textposition": "top center",
                    "textfont": {"size": FONT_SIZE - 2},
                    "marker": {"size": 11, "color": TOKEN_COLOR, "opacity": 0.8},
                    "name": title,
                    "showlegend": False,
                    "hovertemplate": "%{text}<br>PC 1 %{x:.2e}<br>PC 2 %{y:.2e}<extra></extra>",
                }
            )
        )
        axis = {"range": [-reach, reach], "zeroline": False}
        layout[cell.xaxis].update(axis, title={"text": "PC 1"})
        layout[cell.yaxis].update(axis, title={"text": "PC 2"})
    rows = cells[-1].row + 1
    layout.update(
        title={"text": f"the tokens after {depth} layers"},
        height=420 * rows + 80,
        margin={**MARGIN, "t": 90},
        font={"size": FONT_SIZE},
    )
    return figure(data, layout)


def joint_query_key_figure(
    layout: JointLayout,
    query_tokens: list[str],
    key_tokens: list[str],
    weights: np.ndarray,
    head: int,
    title: str,
) -> go.Figure:
    """One head's queries (●) and keys (◇) in one 2-D picture; each query is joined to
    its keys by lines as wide and opaque as the weight."""
    color = head_color(head)
    q_index, k_index = np.indices(weights.shape).reshape(2, -1)
    data = weighted_segments(
        layout.queries[q_index], layout.keys[k_index], weights.ravel(), color, "weight"
    )
    for coords, tokens, symbol, side in (
        (layout.queries, query_tokens, QUERY_SYMBOL, "query (decoder)"),
        (layout.keys, key_tokens, KEY_SYMBOL, "key (encoder)"),
    ):
        data.append(
            {
                "type": "scatter",
                "x": np.round(coords[:, 0], 4),
                "y": np.round(coords[:, 1], 4),
                "mode": "markers+text",
                "text": [safe_label(t) for t in tokens],
                "textposition": "top center",
                "marker": {"symbol": symbol, "size": 16, "color": color, "line": {"width": 2}},
                "name": side,
                "hovertemplate": f"{side}: %{{text}}<extra></extra>",
            }
        )
    corr = layout.score_distance_corr
    shown = f"{corr:+.2f}" if np.isfinite(corr) else "n/a (all scores equal)"
    plane = {"showticklabels": False, "zeroline": False}
    fig_layout = {
        "title": {
            "text": f"{safe_label(title, 40)} · 2-D keeps {100 * layout.variance_kept:.0f} % "
            f"of the spread · ρ(score, distance) = {shown}"
        },
        "xaxis": {**plane, "title": {"text": "PC 1"}},
        "yaxis": {**plane, "title": {"text": "PC 2"}, "scaleanchor": "x"},
        "legend": {"orientation": "h", "y": -0.12, "x": 0},
        "height": 520,
        "margin": {**MARGIN, "t": 60},
        "font": {"size": FONT_SIZE},
    }
    return figure(data, fig_layout)


SUBLAYER_STYLES = (("self-attention", "#0072B2", "solid"), ("feed-forward", "#D55E00", "dash"))


def layer_ratio_figure(ratios: np.ndarray) -> go.Figure:
    """A trained model's nudges layer by layer: for each sublayer, the median over
    tokens of ‖update‖ / ‖stream‖ (line) and the band holding the middle 80 % of tokens
    (a few special tokens get far larger nudges and would flatten the rest). `ratios`
    is (layers, 2, n): sublayer 0 attention, 1 feed-forward."""
    layers = np.arange(1, ratios.shape[0] + 1)
    data = []
    for index, (name, color, dash) in enumerate(SUBLAYER_STYLES):
        per_token = ratios[:, index, :]
        low, high = np.percentile(per_token, [10, 90], axis=1)
        data.append(
            {
                "type": "scatter",
                "x": np.concatenate([layers, layers[::-1]]),
                "y": np.concatenate([high, low[::-1]]).round(4),
                "fill": "toself",
                "mode": "lines",
                "fillcolor": with_alpha(color, 0.18),
                "line": {"width": 0},
                "hoverinfo": "skip",
                "name": f"{name}: middle 80 % of tokens",
                "legendgroup": name,
            }
        )
        data.append(
            {
                "type": "scatter",
                "x": layers,
                "y": np.median(per_token, axis=1).round(4),
                "mode": "lines+markers",
                "line": {"color": color, "dash": dash, "width": 3},
                "name": f"{name}: median token",
                "legendgroup": name,
                "hovertemplate": f"layer %{{x}} · {name}<br>median ‖update‖ / ‖stream‖: "
                "%{y:.2f}<extra></extra>",
            }
        )
    layout = {
        "height": 420,
        "font": {"size": FONT_SIZE},
        "plot_bgcolor": "white",
        "xaxis": {"title": {"text": "layer"}, "tickvals": layers, "showgrid": False},
        "yaxis": {
            "title": {"text": "‖update‖ / ‖stream‖"},
            "rangemode": "tozero",
            "gridcolor": "#EEEEEE",
        },
        "legend": {"orientation": "h", "y": -0.2, "yanchor": "top"},
        "margin": MARGIN,
    }
    return figure(data, layout)
