"""The before → after motion of the head-spaces view: the tokens glide from their
original PCA plane into each head's query/key plane, head after head, as Plotly frames
played in the browser (or stepped, when the student's system asks for reduced motion)."""

from __future__ import annotations

import numpy as np
import plotly.graph_objects as go

from attention.figures.base.grid import figure
from attention.figures.base.palette import (
    FONT_SIZE,
    KEY_SYMBOL,
    QUERY_SYMBOL,
    TOKEN_COLOR,
    head_color,
)
from attention.figures.base.points import points_trace, shown_labels
from attention.figures.base.text import safe_label
from attention.figures.head_spaces import PLANE_AXIS, check_spaces
from attention.geometry.head_spaces import HeadSpaces


def _unit_spread(coords: np.ndarray) -> np.ndarray:
    """Centre points and scale them to RMS radius 1, so every frame has the same size;
    rounded to 0.0001 (a fraction of a pixel), which halves the animation's JSON."""
    centred = coords - coords.mean(axis=0)
    radius = np.sqrt((centred**2).sum(axis=1).mean())
    return np.round(centred / radius if radius > 0 else centred, 4)


def motion_figure(
    spaces: HeadSpaces,
    tokens: list[str],
    start: int = 0,
    move_ms: int = 900,
    hold_ms: int = 1500,
    reduced_motion: bool = False,
) -> go.Figure:
    """Tokens glide from their original positions into each head's query/key space,
    head after head, resting `hold_ms` on each: Plotly frames played in the browser, no
    server round trip. Stage `start` (0 = before, h = head h) is drawn first and Play
    goes on from it. Each move is a frame of its own ("to head k") with no slider step,
    so the slider's "showing" label changes when the points arrive, not when they leave.
    With `reduced_motion` (the student's system asks for it) nothing glides: Play steps
    from head to head, resting on each, and the slider jumps."""
    if reduced_motion:
        move_ms = 0
    check_spaces(spaces, len(tokens))
    labels = [safe_label(t) for t in tokens]
    shown = shown_labels(labels, set())
    n = len(tokens)
    before = _unit_spread(spaces.before.coords)
    stages = [("before", before, before, TOKEN_COLOR)]
    for h, space in enumerate(spaces.heads):
        both = _unit_spread(np.vstack([space.queries, space.keys]))
        stages.append((f"head {h + 1}", both[:n], both[n:], head_color(h)))
    start = min(max(start, 0), len(stages) - 1)

    def traces(queries: np.ndarray, keys: np.ndarray, color: str) -> list[dict]:
        return [
            points_trace(
                keys,
                mode="markers",
                hovertext=labels,
                name="keys",
                hovertemplate="key: %{hovertext}<extra></extra>",
                marker={"symbol": KEY_SYMBOL, "size": 12, "color": color, "line": {"width": 2}},
            ),
            points_trace(
                queries,
                mode="markers+text",
                text=shown,
                textposition="top center",
                hovertext=labels,
                hovertemplate="query: %{hovertext}<extra></extra>",
                name="queries",
                marker={"symbol": QUERY_SYMBOL, "size": 10, "color": color},
            ),
        ]

    frames, play, timing = [], [], []
    moving = {"duration": move_ms, "easing": "cubic-in-out"}
    for index, (name, q, k, color) in enumerate(stages):
        data = traces(q, k, color)
        frames.append({"data": data, "name": name})
        if index:
            frames.append({"data": data, "name": f"to {name}"})
        if index > start:
            play += [f"to {name}", name]
            timing += [({"duration": move_ms, "redraw": False}, moving),
                       ({"duration": hold_ms, "redraw": False}, {"duration": 0})]  # fmt: skip
    everything = np.vstack([np.vstack([q, k]) for _, q, k, _ in stages])
    low, high = everything.min(axis=0) - 0.3, everything.max(axis=0) + 0.3
    go_to = {
        "frame": {"duration": move_ms, "redraw": False},
        "transition": moving,
        "mode": "immediate",
    }
    pause = {"frame": {"duration": 0, "redraw": False}, "transition": {"duration": 0},
             "mode": "immediate"}  # fmt: skip
    play_options = {
        "frame": [f for f, _ in timing],
        "transition": [t for _, t in timing],
        "mode": "immediate",
    }
    layout = {
        "title": {  # two lines: one is wider than a half column at 1280–1440 px
            "text": "Before → after: each head moves<br>the same tokens differently",
            "y": 0.98,
        },
        "height": 640,
        "font": {"size": FONT_SIZE},
        "plot_bgcolor": "white",
        "xaxis": {**PLANE_AXIS, "range": [low[0], high[0]], "title": {"text": "PC 1"}},
        "yaxis": {
            **PLANE_AXIS,
            "range": [low[1], high[1]],
            "title": {"text": "PC 2"},
            "scaleanchor": "x",
            "scaleratio": 1,
        },
        # No legend: the page's caption names ● and ◇, and in a half column at 1024 px
        # a legend beside the buttons ran under them.
        "showlegend": False,
        "margin": {"l": 10, "r": 10, "t": 110, "b": 130},  # b: the slider's whole depth
        "updatemenus": [
            {
                "type": "buttons",
                "direction": "left",
                "x": 0,
                "y": 1.0,
                "xanchor": "left",
                "yanchor": "bottom",
                "pad": {"b": 6},
                "buttons": [
                    {"label": "▶ Play", "method": "animate", "args": [play, play_options]},
                    {"label": "❚❚ Pause", "method": "animate", "args": [[None], pause]},
                ],
            }
        ],
        "sliders": [
            {
                "active": start,
                "x": 0,
                "len": 1.0,
                "y": 0,
                "yanchor": "top",
                "pad": {"t": 30},
                "currentvalue": {"prefix": "showing: ", "font": {"size": FONT_SIZE}},
                "steps": [
                    {"label": name, "method": "animate", "args": [[name], go_to]}
                    for name, *_ in stages
                ],
            }
        ],
    }
    first = next(f for f in frames if f["name"] == stages[start][0])
    return figure(first["data"], layout, frames)
