"""The live class's histogram: how many students chose each answer of the current step,
one bar group per round side by side (counts only, never who)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import plotly.graph_objects as go

from attention.figures.base.grid import CHART_MARGIN, figure

# Round 1 grey, round 2 blue: the second vote stands out, and both differ in lightness.
ROUND_COLORS = {1: "#777777", 2: "#0072B2"}


def vote_bars(
    options: Sequence[str], rounds: Mapping[int, Mapping[str, int]], height: int = 260
) -> go.Figure:
    """Horizontal bars: for each option (top to bottom in the given order) its count in
    each round of `rounds` (round → option → count)."""
    data = [
        {
            "type": "bar",
            "orientation": "h",
            "y": list(options),
            "x": [counts.get(option, 0) for option in options],
            "name": f"round {round}",
            "marker": {"color": ROUND_COLORS[round]},
            "text": [counts.get(option, 0) for option in options],
            "textposition": "outside",  # thin bars would shrink a count drawn inside
            "textangle": 0,
            "cliponaxis": False,
            "hovertemplate": "%{y}<br>round " + str(round) + ": %{x} students<extra></extra>",
        }
        for round, counts in sorted(rounds.items())
    ]
    top = max((sum(counts.values()) for counts in rounds.values()), default=0)
    layout = {
        "title": {"text": "The class's answers"},
        "height": height,
        "barmode": "group",
        "bargap": 0.15,
        "margin": {**CHART_MARGIN, "t": 30, "b": 40, "r": 30},
        "xaxis": {
            "title": {"text": "students"},
            "rangemode": "tozero",
            "range": [0, max(top, 1)],
            "dtick": max(1, -(-top // 5)),
        },
        # Categories: Plotly.js would read answers such as "75%" or "2" as numbers and
        # draw a numeric axis, not the answers.
        "yaxis": {"type": "category", "autorange": "reversed", "automargin": True},
        "showlegend": len(rounds) > 1,
        "legend": {"orientation": "h", "y": -0.35},
    }
    return figure(data, layout)
