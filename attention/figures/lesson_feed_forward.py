"""The Lesson's feed-forward step: the focus token's hidden units on the GELU curve (the
ones that fire, and the ones it squashes) and what its strongest units write, each
labelled with the words its row of W_2 points at."""

from __future__ import annotations

import numpy as np
import plotly.graph_objects as go

from attention.analysis.feed_forward_look import FeedForwardLook
from attention.core.layers import gelu
from attention.figures.base.grid import figure, grid
from attention.figures.base.palette import FONT_SIZE, TOKEN_COLOR
from attention.figures.base.text import safe_label

FIRING_COLOR = TOKEN_COLOR  # what a unit adds to the token (no head's colour: no head here)
QUIET_COLOR = "#BDBDBD"
CURVE_COLOR = "#888888"
BAR_LABELS_SHARE = 0.45  # of the width, left of the bars, for the units' words


def feed_forward_figure(
    tokens: list[str], look: FeedForwardLook, words: list[list[str]], layer: int
) -> go.Figure:
    """Left: GELU over the range of the focus token's unit inputs, with every unit as a
    point on it. Right: the strongest units' activation × ‖row of W_2‖, each named by
    the words its row points at."""
    focus = safe_label(tokens[look.focus])
    d_ff = look.pre_activation.shape[0]
    titles = [
        f"layer {layer}: {focus}'s {d_ff:,} units on the GELU curve",
        "its strongest units and the words each writes towards",
    ]
    panels, layout = grid(2, 1, titles, v_gap=0.3, row_heights=[1.1, 1.0])
    pre, hidden = look.pre_activation, look.hidden
    curve_x = np.linspace(min(pre.min(), -3.0), max(pre.max(), 1.0), 200)
    fire = pre > 0
    data = [
        panels[0].place(
            {
                "type": "scatter",
                "x": curve_x,
                "y": gelu(curve_x),
                "mode": "lines",
                "line": {"color": CURVE_COLOR, "width": 2, "dash": "dot"},
                "name": "GELU",
                "hoverinfo": "skip",
            }
        )
    ]
    for mask, color, name in ((~fire, QUIET_COLOR, "squashed"), (fire, FIRING_COLOR, "fires")):
        units = np.flatnonzero(mask)
        data.append(
            panels[0].place(
                {
                    "type": "scatter",
                    "x": pre[units],
                    "y": hidden[units],
                    "customdata": units + 1,
                    "mode": "markers",
                    "marker": {"color": color, "size": 6, "opacity": 0.8},
                    "name": f"{name} ({len(units):,})",
                    # the name in the label: as <extra>, Plotly writes it in the point's
                    # colour, the squashed units' light grey
                    "hovertemplate": f"unit %{{customdata}} ({name}): input %{{x:.2f}} → "
                    "%{y:.2f}<extra></extra>",
                }
            )
        )
    names = [
        f"{u + 1}: " + " · ".join(safe_label(w, 12) for w in ws)
        for u, ws in zip(look.units, words, strict=True)
    ]
    data.append(
        panels[1].place(
            {
                "type": "bar",
                "orientation": "h",
                "x": look.writes,
                "y": names,
                "marker": {"color": FIRING_COLOR},
                "showlegend": False,
                "hovertemplate": "%{y}<br>activation × ‖row of W_2‖ %{x:.2f}<extra></extra>",
            }
        )
    )
    layout[panels[0].xaxis].update(title={"text": "unit's input (x · W_1 + b_1)"}, zeroline=True)
    layout[panels[0].yaxis].update(title={"text": "output GELU(input)"}, zeroline=True)
    layout[panels[1].xaxis].update(title={"text": "activation × ‖row of W_2‖"})
    layout[panels[1].xaxis].update(domain=[BAR_LABELS_SHARE, 1.0])  # labels on the left
    # every bar named, a size smaller: a short slide's bars are thinner than the labels
    # and Plotly would otherwise name every other one
    layout[panels[1].yaxis].update(
        autorange="reversed",
        automargin=False,
        tickmode="array",
        tickvals=names,
        ticktext=names,
        tickfont={"size": FONT_SIZE - 2},
    )
    layout.update(
        height=620,
        font={"size": FONT_SIZE},
        plot_bgcolor="white",
        legend={"orientation": "h", "x": 1, "y": 1.0, "xanchor": "right", "yanchor": "top"},
        margin={"l": 10, "r": 10, "t": 70, "b": 10},
    )
    return figure(data, layout)
