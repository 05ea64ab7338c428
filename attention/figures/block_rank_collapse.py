"""The block view's rank collapse: distance from rank 1 against depth with and without
the residual and the feed-forward, and the tokens after many stacked layers."""

from __future__ import annotations

import math

import numpy as np
import plotly.graph_objects as go

from attention.figures.base.checks import check_shape
from attention.figures.base.grid import (
    MARGIN,
    PAGE_TITLE_CHARS,
    figure,
    grid,
    titles_margin,
)
from attention.figures.base.palette import (
    FONT_SIZE,
    TOKEN_COLOR,
)
from attention.figures.base.text import safe_label
from attention.figures.base.theme import MUTED
from attention.figures.block import UPDATE_COLOR
from attention.wording import power_of_ten

NO_RESIDUAL_COLOR = "#888888"  # lines only: 3.5:1 on white, over the 3:1 marks need
FEED_FORWARD_COLOR = "#0072B2"  # Okabe-Ito blue, 5.1:1 on white: the runs with an FFN


FLOAT64_FLOOR = 2.2e-16


def rank_collapse_figure(
    curves: list[tuple[str, bool, bool, np.ndarray]], picked_depth: int | None = None
) -> go.Figure:
    """Distance from rank 1 against depth, log scale; `curves` holds (label, residual,
    feed_forward, distances per depth starting at depth 0). With the residual: solid;
    without: dashed. Attention alone is a wide dark (grey without the residual) line,
    attention + FFN a thin blue line with circles drawn over it, so two runs with nearly
    equal distances are both seen. Exact values in the hover; values below float64's
    rounding are drawn just under it."""
    data = []
    for label, residual, feed_forward, distances in curves:
        check_shape(f"distances of {label}", distances, (None,))
        distances = np.asarray(distances, dtype=np.float64)
        data.append(
            {
                "type": "scatter",
                "x": np.arange(len(distances)),
                "y": np.maximum(distances, FLOAT64_FLOOR / 10),  # an exact 0 has no log
                "customdata": distances,
                "hovertext": [power_of_ten(d, 2) for d in distances],  # read aloud: no "e-16"
                "name": label,
                "mode": "lines+markers" if feed_forward else "lines",
                "line": {
                    "color": FEED_FORWARD_COLOR
                    if feed_forward
                    else UPDATE_COLOR
                    if residual
                    else NO_RESIDUAL_COLOR,
                    "dash": "solid" if residual else "dash",
                    "width": 2.5 if feed_forward else 7,
                },
                "marker": {"size": 7},
                "hovertemplate": f"{label}<br>depth %{{x}}<br>distance %{{hovertext}}"
                "<extra></extra>",
            }
        )
    data.sort(key=lambda trace: trace["mode"] == "lines+markers")  # bands under lines
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
                "text": "float64 rounding:<br>identical tokens",  # fits half of 1024 px
                "showarrow": False,
                "xanchor": "right",
                "yanchor": "top",
                "font": {"color": MUTED},  # text: the floor line's grey is too light
            }
        ],
        "xaxis": {"title": {"text": "depth (layers stacked)"}, "tick0": 0},  # Plotly's step
        "yaxis": {
            "title": {"text": "distance from rank 1, ‖X − 1x̄ᵀ‖ / ‖X‖"},
            "type": "log",
            "exponentformat": "power",
            # Room under the floor for its two-line note, clear of the depth ticks (at
            # 2.6 decades a projector's 1.3× note sat on them once the legend took 4 rows).
            "range": [math.log10(FLOAT64_FLOOR) - 4, 0.3],
        },
        "legend": {"orientation": "h", "y": -0.22, "x": 0},
        "height": 520,
        "margin": {**MARGIN, "t": 30},
        "font": {"size": FONT_SIZE},
    }
    return figure(data, layout)


def collapse_pca_figure(
    tokens: list[str],
    panels: list[tuple[str, np.ndarray]],
    depth: int,
    columns: int = 4,
    title_chars: int = PAGE_TITLE_CHARS,
) -> go.Figure:
    """The tokens at one depth, one panel per stack variant, PCA in units of the
    tokens' RMS norm on identical axes: collapsed tokens pile onto one point. The axes
    are named on the outer edges only; `title_chars` is as in grid.grid."""
    for title, coords in panels:
        check_shape(f"coords of {title}", coords, (len(tokens), 2))
    labels = [safe_label(t) for t in tokens]
    titles = [t for t, _ in panels]
    cells, layout = grid(
        len(panels), columns, titles, h_gap=0.1, equal_aspect=True, title_chars=title_chars
    )
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
        layout[cell.xaxis].update(axis, title={"text": "PC 1" if cell.bottom else None})
        layout[cell.yaxis].update(axis, title={"text": "PC 2" if cell.col == 0 else None})
    rows = cells[-1].row + 1
    layout.update(
        title={"text": f"the tokens after {depth} layers"},
        height=(1200 // columns) * rows + 80,
        margin={**MARGIN, "t": titles_margin(layout)["t"] + 46},  # the figure title above
        font={"size": FONT_SIZE},
    )
    return figure(data, layout)
