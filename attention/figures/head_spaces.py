"""Figures of the "Head spaces" page: the tokens before any head, each head's joint
query/key picture with the focus token's lines to its keys, each head's values with the
focus token's output as a star, and the before → after motion."""

from __future__ import annotations

import math

import numpy as np
import plotly.graph_objects as go

from attention.figures.grid import Panel, figure, grid
from attention.figures.lines import weighted_segments
from attention.figures.palette import (
    FOCUS_COLOR,
    FONT_SIZE,
    KEY_SYMBOL,
    OUTPUT_SYMBOL,
    QUERY_SYMBOL,
    TOKEN_COLOR,
    VALUE_SYMBOL,
    head_color,
    with_alpha,
)
from attention.figures.text import safe_label
from attention.head_spaces import HeadSpaces
from attention.projection import Layout2D

LABEL_ALL_UP_TO = 24  # more tokens than this: label only the focus and its top keys
PLANE_AXIS = {"showticklabels": False, "zeroline": False, "showgrid": True, "gridcolor": "#EEEEEE"}
TOP_LEGEND = {
    "orientation": "h",
    "y": 0.99,
    "yanchor": "top",
    "x": 1,
    "xanchor": "right",
    "yref": "container",
}


def _fmt(value: float, pattern: str = "{:+.2f}") -> str:
    return "n/a" if not math.isfinite(value) else pattern.format(value)


def _shown_labels(labels: list[str], keep: set[int]) -> list[str]:
    if len(labels) <= LABEL_ALL_UP_TO:
        return labels
    return [label if i in keep else "" for i, label in enumerate(labels)]


def _plane_axes(layout: dict, panels: list[Panel]) -> None:
    """PCA coordinates have no units: no tick labels, equal scale on both axes."""
    for panel in panels:
        layout[panel.xaxis].update(PLANE_AXIS, title={"text": "PC 1", "standoff": 2})
        layout[panel.yaxis].update(PLANE_AXIS, title={"text": "PC 2", "standoff": 2})


def _points(xy: np.ndarray, **props) -> dict:
    return {"type": "scatter", "x": xy[:, 0], "y": xy[:, 1], **props}


def before_figure(before: Layout2D, tokens: list[str], focus: int) -> go.Figure:
    """The token vectors before any head: PCA of x, labelled, focus token ringed.
    The first trace's points are the tokens in order, so a click gives the token."""
    labels = [safe_label(t) for t in tokens]
    xy = before.coords
    data = [
        _points(
            xy,
            mode="markers+text",
            text=_shown_labels(labels, {focus}),
            textposition="top center",
            hovertext=labels,
            customdata=np.arange(len(tokens)),
            hovertemplate="%{hovertext} (token %{customdata})<extra></extra>",
            marker={"size": 13, "color": TOKEN_COLOR, "line": {"width": 1, "color": "white"}},
            name="tokens",
        ),
        _points(
            xy[focus : focus + 1],
            mode="markers",
            hoverinfo="skip",
            marker={
                "size": 26,
                "color": "rgba(0,0,0,0)",
                "line": {"width": 3, "color": FOCUS_COLOR},
            },
            name=f"focus: {labels[focus]}",
        ),
    ]
    panels, layout = grid(1, 1, equal_aspect=True)
    _plane_axes(layout, panels)
    layout.update(
        title={"text": f"Before: the token vectors (variance kept {before.variance_kept:.0%})"},
        height=460,
        font={"size": FONT_SIZE},
        showlegend=False,
        plot_bgcolor="white",
        margin={"l": 10, "r": 10, "t": 50, "b": 10},
        clickmode="event+select",
        dragmode="pan",
    )
    return figure(data, layout)


def _head_grid(n_heads: int, titles: list[str], columns: int) -> tuple[list[Panel], dict]:
    colors = [head_color(h) for h in range(n_heads)]
    return grid(n_heads, columns, titles, colors, equal_aspect=True)


def _finish(layout: dict, panels: list[Panel], row_px: int) -> None:
    _plane_axes(layout, panels)
    layout.update(
        height=(panels[-1].row + 1) * row_px + 90,
        font={"size": FONT_SIZE},
        plot_bgcolor="white",
        legend=TOP_LEGEND,
        margin={"l": 10, "r": 10, "t": 90, "b": 10},
    )


def head_space_figure(
    spaces: HeadSpaces, tokens: list[str], weights: np.ndarray, focus: int, columns: int = 4
) -> go.Figure:
    """One panel per head: its queries (●) and keys (◇) in one joint 2-D layout, and the
    focus token's query joined to every key by a line as wide as its attention weight."""
    labels = [safe_label(t) for t in tokens]
    titles = [
        f"head {h + 1}<br>var {s.variance_kept:.0%} · ρ {_fmt(s.score_distance_corr)}"
        for h, s in enumerate(spaces.heads)
    ]
    panels, layout = _head_grid(len(spaces.heads), titles, columns)
    data = []
    for panel, space in zip(panels, spaces.heads, strict=True):
        h, color, w = panel.index, head_color(panel.index), weights[panel.index, focus]
        top = set(np.argsort(-w)[:3].tolist()) | {focus}
        starts = np.repeat(space.queries[focus][None, :], len(tokens), axis=0)
        traces = weighted_segments(starts, space.keys, w, color, f"head {h + 1}")
        traces.append(
            _points(
                space.keys,
                mode="markers+text",
                text=_shown_labels(labels, top),
                textposition="bottom center",
                textfont={"size": FONT_SIZE - 3},
                hovertext=labels,
                customdata=np.round(w, 4),
                hovertemplate=(
                    "key: %{hovertext}<br>weight from the focus query: "
                    f"%{{customdata:.3f}}<extra>head {h + 1}</extra>"
                ),
                marker={"symbol": KEY_SYMBOL, "size": 11, "color": color, "line": {"width": 2}},
                name="keys",
                legendgroup="keys",
                showlegend=h == 0,
            )
        )
        traces.append(
            _points(
                space.queries,
                mode="markers",
                hovertext=labels,
                hovertemplate=f"query: %{{hovertext}}<extra>head {h + 1}</extra>",
                marker={"symbol": QUERY_SYMBOL, "size": 9, "color": with_alpha(color, 0.55)},
                name="queries",
                legendgroup="queries",
                showlegend=h == 0,
            )
        )
        traces.append(
            _points(
                space.queries[focus : focus + 1],
                mode="markers+text",
                text=[labels[focus]],
                textposition="top center",
                textfont={"size": FONT_SIZE - 1, "color": FOCUS_COLOR},
                hovertemplate=f"focus query: {labels[focus]}<extra>head {h + 1}</extra>",
                marker={
                    "symbol": QUERY_SYMBOL,
                    "size": 16,
                    "color": color,
                    "line": {"width": 2.5, "color": FOCUS_COLOR},
                },
                name="focus query",
                legendgroup="focus",
                showlegend=h == 0,
            )
        )
        data += [panel.place(t) for t in traces]
    _finish(layout, panels, 380)
    return figure(data, layout)


def values_figure(
    spaces: HeadSpaces, tokens: list[str], weights: np.ndarray, focus: int, columns: int = 4
) -> go.Figure:
    """One panel per head: its values (■) in 2-D and the focus token's head output (★),
    the attention-weighted average of the values; lines show each value's share."""
    labels = [safe_label(t) for t in tokens]
    titles = [f"head {h + 1} · var {s.value_variance_kept:.0%}" for h, s in enumerate(spaces.heads)]
    panels, layout = _head_grid(len(spaces.heads), titles, columns)
    data = []
    for panel, space in zip(panels, spaces.heads, strict=True):
        h, color, w = panel.index, head_color(panel.index), weights[panel.index, focus]
        star = space.outputs[focus]
        starts = np.repeat(star[None, :], len(tokens), axis=0)
        traces = weighted_segments(starts, space.values, w, color, f"head {h + 1}")
        traces.append(
            _points(
                space.values,
                mode="markers+text",
                text=_shown_labels(labels, set(np.argsort(-w)[:3].tolist())),
                textposition="bottom center",
                textfont={"size": FONT_SIZE - 3},
                hovertext=labels,
                customdata=np.round(w, 4),
                hovertemplate=(
                    "value of %{hovertext}<br>its weight in the output: "
                    f"%{{customdata:.3f}}<extra>head {h + 1}</extra>"
                ),
                marker={"symbol": VALUE_SYMBOL, "size": 10, "color": with_alpha(color, 0.7)},
                name="values",
                legendgroup="values",
                showlegend=h == 0,
            )
        )
        order = np.argsort(-w)[:5]
        recipe = "<br>".join(f"{w[j]:.3f} × value of {labels[j]}" for j in order)
        more = "<br>+ …" if len(tokens) > 5 else ""
        traces.append(
            _points(
                star[None, :],
                mode="markers",
                marker={
                    "symbol": OUTPUT_SYMBOL,
                    "size": 22,
                    "color": color,
                    "line": {"width": 1.5, "color": FOCUS_COLOR},
                },
                hovertemplate=(
                    f"output of head {h + 1} for {labels[focus]}<br>= {recipe}{more}<extra></extra>"
                ),
                name=f"head output for {labels[focus]}",
                legendgroup="output",
                showlegend=h == 0,
            )
        )
        data += [panel.place(t) for t in traces]
    _finish(layout, panels, 340)
    return figure(data, layout)


def _unit_spread(coords: np.ndarray) -> np.ndarray:
    """Centre points and scale them to RMS radius 1, so every frame has the same size."""
    centred = coords - coords.mean(axis=0)
    radius = np.sqrt((centred**2).sum(axis=1).mean())
    return centred / radius if radius > 0 else centred


def motion_figure(spaces: HeadSpaces, tokens: list[str], duration_ms: int = 900) -> go.Figure:
    """Tokens glide from their original positions into each head's query/key space,
    head after head: Plotly frames played in the browser, no server round trip."""
    labels = [safe_label(t) for t in tokens]
    shown = _shown_labels(labels, set())
    n = len(tokens)
    before = _unit_spread(spaces.before.coords)
    stages = [("before", before, before, TOKEN_COLOR)]
    for h, space in enumerate(spaces.heads):
        both = _unit_spread(np.vstack([space.queries, space.keys]))
        stages.append((f"head {h + 1}", both[:n], both[n:], head_color(h)))

    def traces(queries: np.ndarray, keys: np.ndarray, color: str) -> list[dict]:
        return [
            _points(
                keys,
                mode="markers",
                hovertext=labels,
                name="keys",
                hovertemplate="key: %{hovertext}<extra></extra>",
                marker={"symbol": KEY_SYMBOL, "size": 12, "color": color, "line": {"width": 2}},
            ),
            _points(
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

    frames = [{"data": traces(q, k, c), "name": name} for name, q, k, c in stages]
    everything = np.vstack([np.vstack([q, k]) for _, q, k, _ in stages])
    low, high = everything.min(axis=0) - 0.3, everything.max(axis=0) + 0.3
    step = {
        "frame": {"duration": duration_ms, "redraw": True},
        "transition": {"duration": duration_ms, "easing": "cubic-in-out"},
        "mode": "immediate",
    }
    pause = {**step, "frame": {"duration": 0, "redraw": False}, "transition": {"duration": 0}}
    layout = {
        "title": {"text": "Before → after: each head moves the same tokens differently", "y": 0.98},
        "height": 600,
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
        "legend": {"orientation": "h", "y": 1.0, "yanchor": "bottom", "x": 1, "xanchor": "right"},
        "margin": {"l": 10, "r": 10, "t": 90, "b": 110},
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
                    {
                        "label": "▶ Play",
                        "method": "animate",
                        "args": [None, {**step, "fromcurrent": True}],
                    },
                    {"label": "❚❚ Pause", "method": "animate", "args": [[None], pause]},
                ],
            }
        ],
        "sliders": [
            {
                "active": 0,
                "x": 0,
                "len": 1.0,
                "y": 0,
                "yanchor": "top",
                "pad": {"t": 30},
                "currentvalue": {"prefix": "showing: ", "font": {"size": FONT_SIZE}},
                "steps": [
                    {"label": name, "method": "animate", "args": [[name], step]}
                    for name, *_ in stages
                ],
            }
        ],
    }
    return figure(frames[0]["data"], layout, frames)
