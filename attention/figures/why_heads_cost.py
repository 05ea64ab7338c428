""" "Why several heads?": what layouts of heads cost (parameters and multiply-adds) and how
that grows with the sequence length. Layouts are not heads: they get their own styles
(palette.LAYOUT_STYLES, colour AND dash)."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence

import numpy as np
import plotly.graph_objects as go

from attention.experiments.equal_cost import LayoutCost
from attention.figures.base.checks import check_shape
from attention.figures.base.grid import (
    PAGE_TITLE_CHARS,
    figure,
    framed_layout,
    grid,
    note_above,
    titles_margin,
    vertical_line,
    wrapped_title,
)
from attention.figures.base.palette import (
    FONT_SIZE,
    LAYOUT_STYLES,
)

PART_STYLES = {  # the two parts of a layout's multiply-adds
    "projection": {"color": "#777777", "pattern": {"shape": ""}},
    "score": {"color": "#DDDDDD", "pattern": {"shape": "/", "fgcolor": "#333333"}},
}


_UPRIGHT_LABEL_CHARS = 11  # a layout's name under its upright bar: 3 bars across a phone


def cost_bars(
    layouts: Sequence[LayoutCost],
    n_tokens: int,
    title_chars: int = PAGE_TITLE_CHARS,
    upright: bool = False,
) -> go.Figure:
    """Parameters (top) and multiply-adds (projections | scores, below) of each layout,
    one above the other so each gets a half page's width; `title_chars` as in grid.grid.
    `upright` stands the bars up with the layouts' names broken into lines under them
    (a phone: lying bars left the names most of the width)."""
    labels = [row.label for row in layouts]
    if upright:
        labels = [wrapped_title(label, _UPRIGHT_LABEL_CHARS) for label in labels]
    names, sizes = ("x", "y") if upright else ("y", "x")
    titles = ["Parameters", f"Multiply-adds, n = {n_tokens}"]
    (top, below), layout = grid(2, 1, titles, v_gap=0.3, title_chars=title_chars)
    bar = {"type": "bar", names: labels, "orientation": "v" if upright else "h"}
    data = [
        top.place(
            {
                **bar,
                sizes: [row.cost.params for row in layouts],
                "marker": {"color": PART_STYLES["projection"]["color"]},
                "name": "parameters",
                "showlegend": False,
                "hovertemplate": f"%{{{names}}}<br>%{{{sizes}:,}} parameters<extra></extra>",
            }
        )
    ]
    parts = {
        "projection": ("W_Q, W_K, W_V, W_O", [row.projection_macs for row in layouts]),
        "score": ("scores q·k and weighted sum (∝ n²)", [row.score_macs for row in layouts]),
    }
    for part, (name, values) in parts.items():
        style = PART_STYLES[part]
        data.append(
            below.place(
                {
                    **bar,
                    sizes: values,
                    "name": name,
                    "marker": {"color": style["color"], "pattern": style["pattern"]},
                    "hovertemplate": f"%{{{names}}}<br>{name}: %{{{sizes}:,}}<extra></extra>",
                }
            )
        )
    for panel in (top, below):
        axis = layout[panel.xaxis if upright else panel.yaxis]
        axis.update(type="category", **({} if upright else {"autorange": "reversed"}))
    margin = titles_margin(layout)
    layout.update(barmode="stack", legend={"orientation": "h", "y": -0.2})
    return figure(data, framed_layout(layout, 460, margin))


def cost_by_length_chart(
    table: Mapping[str, Mapping[str, np.ndarray]], lengths: Sequence[int], current: int
) -> go.Figure:
    """Multiply-adds against sequence length (log–log): total (solid markers) and the
    score part alone (open markers), per layout; the sentence's length marked."""
    for label, parts in table.items():
        for part in ("projection", "score"):
            check_shape(f"{part} of {label}", parts[part], (len(lengths),))
    data = []
    for (label, parts), (color, dash) in zip(table.items(), LAYOUT_STYLES, strict=False):
        total = parts["projection"] + parts["score"]
        for values, part, symbol in (
            (total, "total", "circle"),
            (parts["score"], "scores", "circle-open"),
        ):
            data.append(
                {
                    "type": "scatter",
                    "x": list(lengths),
                    "y": values,
                    "mode": "lines+markers",
                    "name": f"{label}: {part}",
                    "line": {"color": color, "dash": dash, "width": 3 if part == "total" else 2},
                    "marker": {"symbol": symbol, "size": 8},
                    "hovertemplate": f"{label}<br>n = %{{x}}<br>{part}: %{{y:,}}<extra></extra>",
                }
            )
    # On a log axis a shape takes the data value, an annotation its log10.
    layout = {
        "shapes": [vertical_line(current, {"color": "#888888", "dash": "dot"})],
        "annotations": [note_above(math.log10(current), f"your sentence: n = {current}")],
        "xaxis": {"type": "log", "title": {"text": "sequence length n (tokens)"}},
        "yaxis": {"type": "log", "title": {"text": "multiply-adds"}, "exponentformat": "power"},
    }
    # The legend under the plot, in rows: beside it, its six long names took most of a
    # half-page column and squeezed the plot to ~150 px at 1440 px.
    legend = {
        "orientation": "h",
        "x": 0,
        "xanchor": "left",
        "y": -0.28,
        "yanchor": "top",
        "font": {"size": FONT_SIZE - 2},
    }
    return figure(data, framed_layout(layout, 560, legend=legend))
