"""The block view's residual stream: concatenated heads and W_O's update, feed-forward
activations, which head's block each hidden unit reads, and how big a nudge each
sublayer gives the stream (toy and trained). Signed values share one symmetric diverging
axis (palette.signed_axis); the stream is light grey and the updates dark grey, so head
colours keep meaning "this head" only."""

from __future__ import annotations

import numpy as np
import plotly.graph_objects as go

from attention.figures.base.checks import check_shape
from attention.figures.base.grid import (
    MARGIN,
    figure,
    grid,
    titled,
)
from attention.figures.base.palette import (
    FONT_SIZE,
    ROLE_SCALE,
    head_color,
    scale_pairs,
    signed_axis,
    with_alpha,
)
from attention.figures.base.text import safe_label, unique_labels

BAND_PX = 26  # height of the head bands above the concatenated heads


STREAM_COLOR = "#BDBDBD"


UPDATE_COLOR = "#333333"


SUBLAYER_STYLES = (("self-attention", "#0072B2", "solid"), ("feed-forward", "#D55E00", "dash"))


def _rows_px(n_rows: int) -> int:
    """Plot height for n token rows: 34 px a row, squeezed to at most 760 px."""
    return max(200, min(34 * n_rows, 760))


def _text_on(color: str) -> str:
    """Black or white, whichever reads better on the '#RRGGBB' background."""
    r, g, b = (int(color[i : i + 2], 16) for i in (1, 3, 5))
    return "#000000" if 0.299 * r + 0.587 * g + 0.114 * b > 140 else "#FFFFFF"


def _value_heatmap(
    z: np.ndarray, x: list, y: list[str], what: str, colors: dict, name: str
) -> dict:
    """A signed heatmap with its own diverging colour scale (palette.signed_axis), named
    for its table ("Show as table" lists its rows under `name`)."""
    return {
        "type": "heatmap",
        "name": name,
        "z": np.round(np.asarray(z, dtype=np.float64), 4),
        "x": x,
        "y": y,
        **colors,
        "hovertemplate": f"token: %{{y}}<br>{what}: %{{x}}<br>value: %{{z:.3f}}<extra></extra>",
    }


_STACKED_GAP_PX = 110  # between the two maps one above the other: the upper's axis title


def concat_figure(
    tokens: list[str], concat: np.ndarray, update: np.ndarray, n_heads: int, columns: int = 2
) -> go.Figure:
    """Left: each token's concatenated head outputs (n, h·d_head), one coloured band per
    head on top. Right: the same rows after W_O (n, d_model): the update to the stream.
    `columns` = 1 puts the update below, each map as wide as the figure (a phone)."""
    check_shape("concat", concat, (len(tokens), None))
    check_shape("update", update, (len(tokens), None))
    labels = unique_labels(tokens)
    width = concat.shape[1]
    d_head = width // n_heads
    plot_px = _rows_px(len(tokens))
    names = [f"head {c // d_head + 1} · {c % d_head + 1}" for c in range(width)]
    features = list(range(1, update.shape[1] + 1))
    colors = signed_axis(concat, update, title="value", on_trace=True)
    stacked = columns == 1
    paper_px = 2 * plot_px + _STACKED_GAP_PX if stacked else plot_px
    (left, right), layout = grid(2, columns, h_gap=0.06, v_gap=_STACKED_GAP_PX / paper_px)
    data = [  # one colour bar for both: they share the scale
        left.place(_value_heatmap(concat, names, labels, "column", colors, "heads concatenated")),
        right.place(_value_heatmap(update, features, labels, "feature", colors, "update by W_O")),
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
                "y1": 1.0 + BAND_PX / paper_px,
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
        title={"text": f"concatenated<br>heads: {n_heads} × {d_head}<br>= {width} numbers"},
    )  # short lines: the two titles keep apart in a phone's 390-px window
    layout[right.xaxis].update(title={"text": f"× W_O →<br>update: {update.shape[1]}<br>numbers"})
    layout[left.yaxis].update(rows, title={"text": "token"})
    layout[right.yaxis].update(rows, showticklabels=stacked)
    if stacked:  # below the concatenation, the update's rows name their tokens too
        layout[right.yaxis].update(title={"text": "token"})
    layout.update(
        shapes=shapes,
        height=paper_px + 40 + BAND_PX + 90,
        margin={"l": 10, "r": 10, "t": 40 + BAND_PX, "b": 90},
        font={"size": FONT_SIZE},
    )
    return figure(data, layout)


def hidden_figure(tokens: list[str], hidden: np.ndarray, activation: str) -> go.Figure:
    """The feed-forward hidden activations: tokens × d_ff units, signed scale."""
    check_shape("hidden", hidden, (len(tokens), None))
    labels = unique_labels(tokens)
    active = float((hidden > 0).mean())
    units = list(range(1, hidden.shape[1] + 1))
    colors = signed_axis(hidden, title="value", on_trace=True)
    data = [_value_heatmap(hidden, units, labels, "unit", colors, "hidden units")]
    layout = {
        "xaxis": {"title": {"text": f"hidden unit (d_ff = {hidden.shape[1]})"}},
        "yaxis": {"title": {"text": "token"}, "autorange": "reversed", "type": "category"},
        "height": _rows_px(len(tokens)) + 150,
        "margin": {**MARGIN, "t": 60},
        "font": {"size": FONT_SIZE},
    }
    title = f"{activation.upper()} hidden units: {100 * active:.0f} % of them > 0"
    return figure(data, titled(layout, title, share=0.5))


def head_reads_figure(panels: list[tuple[str, np.ndarray]]) -> go.Figure:
    """Per named (d_ff, heads) share matrix: one panel of heads (rows) × hidden units
    (columns), each unit's column the share of its reading that each head's block gives;
    units ordered by their strongest head, then by how much it dominates."""
    for name, shares in panels:
        check_shape(f"shares of {name}", shares, (None, None))
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
            "colorscale": scale_pairs(ROLE_SCALE),
            "cmin": 0.0,
            "cmax": max(float(np.asarray(s).max()) for _, s in panels),
            "colorbar": {"title": {"text": "share"}, "thickness": 14, "tickformat": ".0%"},
        },
        height=sum(110 + 22 * np.asarray(s).shape[1] for _, s in panels) + 40,
        margin={**MARGIN, "t": 50},
        font={"size": FONT_SIZE},
    )
    return figure(data, layout)


def stream_update_figure(
    tokens: list[str],
    sublayers: list[str],
    stream_norms: np.ndarray,
    update_norms: np.ndarray,
    ratios: np.ndarray,
) -> go.Figure:
    """One row per sublayer: for every token, ‖residual stream‖ entering the sublayer
    (light) beside ‖update‖ the sublayer adds to it (dark); the hover gives `ratios`,
    ‖update‖ / ‖stream‖, all three shaped (sublayers, n)."""
    check_shape("stream_norms", stream_norms, (len(sublayers), len(tokens)))
    check_shape("update_norms", update_norms, (len(sublayers), len(tokens)))
    check_shape("ratios", ratios, (len(sublayers), len(tokens)))
    labels = unique_labels(tokens)
    panels, layout = grid(len(sublayers), 1, titles=list(sublayers))
    data = []
    for panel, name, stream, update, ratio in zip(
        panels, sublayers, stream_norms, update_norms, ratios, strict=True
    ):
        custom = np.stack([stream, update, ratio], axis=1).round(4)
        hover = (
            f"token: %{{x}}<br>{name}<br>‖stream‖: %{{customdata[0]:.3f}}"
            "<br>‖update‖: %{customdata[1]:.3f}<br>‖update‖ / ‖stream‖: %{customdata[2]:.3f}"
            "<extra></extra>"
        )
        for values, label, color in (
            (stream, "‖stream‖", STREAM_COLOR),  # short: one legend row in a column
            (update, "‖update‖", UPDATE_COLOR),  # at 1024 px too
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
        # Two rows deep where the column is narrow (1024 px): one row needs 80.
        legend={"orientation": "h", "x": 0, "y": 0.99, "yanchor": "top", "yref": "container"},
        margin={"l": 10, "r": 10, "t": 100, "b": 10},
        font={"size": FONT_SIZE},
    )
    return figure(data, layout)


def layer_ratio_figure(ratios: np.ndarray) -> go.Figure:
    """A trained model's nudges layer by layer: for each sublayer, the median over
    tokens of ‖update‖ / ‖stream‖ (line) and the band holding the middle 80 % of tokens
    (a few special tokens get far larger nudges and would flatten the rest). `ratios`
    is (layers, 2, n): sublayer 0 attention, 1 feed-forward."""
    check_shape("ratios", ratios, (None, len(SUBLAYER_STYLES), None))
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
        # On top, two rows deep: four long entries take two rows in a 535- to 951-px
        # column (1024- to 1440-px windows).
        "legend": {"orientation": "h", "x": 0, "y": 1, "yanchor": "top", "yref": "container"},
        "margin": {**MARGIN, "t": 70},
    }
    return figure(data, layout)
