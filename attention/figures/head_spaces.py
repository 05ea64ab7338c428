"""Figures of the "Head spaces" page: the tokens before any head, each head's joint
query/key picture with the focus token's lines to its keys, each head's values with the
focus token's output as a star, and the before → after motion."""

from __future__ import annotations

import math

import numpy as np
import plotly.graph_objects as go
from plotly.subplots import make_subplots

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


def _labels(tokens: list[str]) -> list[str]:
    return [safe_label(t) for t in tokens]


def _fmt(value: float, pattern: str = "{:+.2f}") -> str:
    return "n/a" if not math.isfinite(value) else pattern.format(value)


def _plane_axes(fig: go.Figure, rows: int, cols: int) -> None:
    """Equal scale on both axes of every panel (distances are the point), no ticks:
    PCA coordinates have no units."""
    for i in range(1, rows * cols + 1):
        suffix = "" if i == 1 else str(i)
        fig.layout[f"yaxis{suffix}"].update(scaleanchor=f"x{suffix}", scaleratio=1)
    fig.update_xaxes(showticklabels=False, zeroline=False, title_text="PC 1", title_standoff=2)
    fig.update_yaxes(showticklabels=False, zeroline=False, title_text="PC 2", title_standoff=2)


def _shown_labels(labels: list[str], keep: set[int]) -> list[str]:
    if len(labels) <= LABEL_ALL_UP_TO:
        return labels
    return [label if i in keep else "" for i, label in enumerate(labels)]


def before_figure(before: Layout2D, tokens: list[str], focus: int) -> go.Figure:
    """The token vectors before any head: PCA of x, labelled, focus token ringed.
    Points carry their token index in customdata, so a click can pick the focus."""
    labels = _labels(tokens)
    xy = before.coords
    fig = go.Figure(
        go.Scatter(
            x=xy[:, 0],
            y=xy[:, 1],
            mode="markers+text",
            text=_shown_labels(labels, {focus}),
            textposition="top center",
            customdata=np.arange(len(tokens)),
            hovertext=labels,
            hovertemplate="%{hovertext} (token %{customdata})<extra></extra>",
            marker={"size": 13, "color": TOKEN_COLOR, "line": {"width": 1, "color": "white"}},
            name="tokens",
        )
    )
    fig.add_trace(
        go.Scatter(
            x=[xy[focus, 0]],
            y=[xy[focus, 1]],
            mode="markers",
            marker={
                "size": 26,
                "color": "rgba(0,0,0,0)",
                "line": {"width": 3, "color": FOCUS_COLOR},
            },
            hoverinfo="skip",
            name=f"focus: {labels[focus]}",
        )
    )
    fig.update_layout(
        title={"text": f"Before: the token vectors (variance kept {before.variance_kept:.0%})"},
        height=460,
        font={"size": FONT_SIZE},
        showlegend=False,
        margin={"l": 10, "r": 10, "t": 50, "b": 10},
        plot_bgcolor="white",
        clickmode="event+select",
        dragmode="pan",
    )
    _plane_axes(fig, 1, 1)
    return fig


def _grid(n_heads: int, titles: list[str], columns: int) -> tuple[go.Figure, int, int]:
    columns = max(1, min(columns, n_heads))
    rows = math.ceil(n_heads / columns)
    fig = make_subplots(
        rows=rows,
        cols=columns,
        subplot_titles=titles,
        horizontal_spacing=0.03,
        vertical_spacing=min(0.12, 0.35 / rows),
    )
    for h, annotation in enumerate(fig.layout.annotations[:n_heads]):
        annotation.font = {"color": head_color(h), "size": FONT_SIZE}
    return fig, rows, columns


def head_space_figure(
    spaces: HeadSpaces, tokens: list[str], weights: np.ndarray, focus: int, columns: int = 4
) -> go.Figure:
    """One panel per head: its queries (●) and keys (◇) in one joint 2-D layout, and the
    focus token's query joined to every key by a line as wide as its attention weight."""
    labels = _labels(tokens)
    n_heads = len(spaces.heads)
    titles = [
        f"head {h + 1} · var {s.variance_kept:.0%} · ρ {_fmt(s.score_distance_corr)}"
        for h, s in enumerate(spaces.heads)
    ]
    fig, rows, cols = _grid(n_heads, titles, columns)
    for h, space in enumerate(spaces.heads):
        row, col = divmod(h, cols)
        color = head_color(h)
        w = weights[h, focus]
        top = set(np.argsort(-w)[:3].tolist()) | {focus}
        panel = {"row": row + 1, "col": col + 1}
        starts = np.repeat(space.queries[focus][None, :], len(tokens), axis=0)
        for trace in weighted_segments(starts, space.keys, w, color, f"head {h + 1}"):
            fig.add_trace(trace, **panel)
        fig.add_trace(
            go.Scatter(
                x=space.keys[:, 0],
                y=space.keys[:, 1],
                mode="markers+text",
                text=_shown_labels(labels, top),
                textposition="bottom center",
                textfont={"size": FONT_SIZE - 3},
                hovertext=labels,
                customdata=np.round(w, 4),
                hovertemplate=(
                    "key: %{hovertext}<br>weight from the focus query: %{customdata:.3f}"
                    f"<extra>head {h + 1}</extra>"
                ),
                marker={"symbol": KEY_SYMBOL, "size": 11, "color": color, "line": {"width": 2}},
                name="keys",
                legendgroup="keys",
                showlegend=h == 0,
            ),
            **panel,
        )
        fig.add_trace(
            go.Scatter(
                x=space.queries[:, 0],
                y=space.queries[:, 1],
                mode="markers",
                hovertext=labels,
                hovertemplate=f"query: %{{hovertext}}<extra>head {h + 1}</extra>",
                marker={"symbol": QUERY_SYMBOL, "size": 9, "color": with_alpha(color, 0.55)},
                name="queries",
                legendgroup="queries",
                showlegend=h == 0,
            ),
            **panel,
        )
        fig.add_trace(
            go.Scatter(
                x=[space.queries[focus, 0]],
                y=[space.queries[focus, 1]],
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
            ),
            **panel,
        )
    _plane_axes(fig, rows, cols)
    fig.update_layout(
        height=rows * 380 + 90,
        font={"size": FONT_SIZE},
        plot_bgcolor="white",
        legend={
            "orientation": "h",
            "y": 0.99,
            "yanchor": "top",
            "x": 1,
            "xanchor": "right",
            "yref": "container",
        },
        margin={"l": 10, "r": 10, "t": 90, "b": 10},
    )
    return fig


def values_figure(
    spaces: HeadSpaces, tokens: list[str], weights: np.ndarray, focus: int, columns: int = 4
) -> go.Figure:
    """One panel per head: its values (■) in 2-D and the focus token's head output (★),
    the attention-weighted average of the values; lines show each value's share."""
    labels = _labels(tokens)
    n_heads = len(spaces.heads)
    titles = [f"head {h + 1} · var {s.value_variance_kept:.0%}" for h, s in enumerate(spaces.heads)]
    fig, rows, cols = _grid(n_heads, titles, columns)
    for h, space in enumerate(spaces.heads):
        row, col = divmod(h, cols)
        color = head_color(h)
        w = weights[h, focus]
        panel = {"row": row + 1, "col": col + 1}
        star = space.outputs[focus]
        starts = np.repeat(star[None, :], len(tokens), axis=0)
        for trace in weighted_segments(starts, space.values, w, color, f"head {h + 1}"):
            fig.add_trace(trace, **panel)
        fig.add_trace(
            go.Scatter(
                x=space.values[:, 0],
                y=space.values[:, 1],
                mode="markers+text",
                text=_shown_labels(labels, set(np.argsort(-w)[:3].tolist())),
                textposition="bottom center",
                textfont={"size": FONT_SIZE - 3},
                hovertext=labels,
                customdata=np.round(w, 4),
                hovertemplate=(
                    "value of %{hovertext}<br>its weight in the output: %{customdata:.3f}"
                    f"<extra>head {h + 1}</extra>"
                ),
                marker={"symbol": VALUE_SYMBOL, "size": 10, "color": with_alpha(color, 0.7)},
                name="values",
                legendgroup="values",
                showlegend=h == 0,
            ),
            **panel,
        )
        order = np.argsort(-w)[:5]
        recipe = "<br>".join(f"{w[j]:.3f} × value of {labels[j]}" for j in order)
        fig.add_trace(
            go.Scatter(
                x=[star[0]],
                y=[star[1]],
                mode="markers",
                marker={
                    "symbol": OUTPUT_SYMBOL,
                    "size": 22,
                    "color": color,
                    "line": {"width": 1.5, "color": FOCUS_COLOR},
                },
                hovertemplate=(
                    f"output of head {h + 1} for {labels[focus]}<br>= {recipe}"
                    + ("<br>+ …" if len(tokens) > 5 else "")
                    + "<extra></extra>"
                ),
                name=f"head output for {labels[focus]}",
                legendgroup="output",
                showlegend=h == 0,
            ),
            **panel,
        )
    _plane_axes(fig, rows, cols)
    fig.update_layout(
        height=rows * 340 + 90,
        font={"size": FONT_SIZE},
        plot_bgcolor="white",
        legend={
            "orientation": "h",
            "y": 0.99,
            "yanchor": "top",
            "x": 1,
            "xanchor": "right",
            "yref": "container",
        },
        margin={"l": 10, "r": 10, "t": 90, "b": 10},
    )
    return fig


def _unit_spread(coords: np.ndarray) -> np.ndarray:
    """Centre points and scale them to RMS radius 1, so every frame has the same size."""
    centred = coords - coords.mean(axis=0)
    radius = np.sqrt((centred**2).sum(axis=1).mean())
    return centred / radius if radius > 0 else centred


def motion_figure(spaces: HeadSpaces, tokens: list[str], duration_ms: int = 900) -> go.Figure:
    """Tokens glide from their original positions into each head's query/key space,
    head after head: Plotly frames played in the browser, no server round trip."""
    labels = _labels(tokens)
    shown = _shown_labels(labels, set())
    before = _unit_spread(spaces.before.coords)
    stages = [("before", before, before, TOKEN_COLOR)]
    for h, space in enumerate(spaces.heads):
        both = _unit_spread(np.vstack([space.queries, space.keys]))
        n = len(tokens)
        stages.append((f"head {h + 1}", both[:n], both[n:], head_color(h)))

    def traces(queries: np.ndarray, keys: np.ndarray, color: str) -> list[go.Scatter]:
        return [
            go.Scatter(
                x=keys[:, 0],
                y=keys[:, 1],
                mode="markers",
                hovertext=labels,
                hovertemplate="key: %{hovertext}<extra></extra>",
                name="keys",
                marker={"symbol": KEY_SYMBOL, "size": 12, "color": color, "line": {"width": 2}},
            ),
            go.Scatter(
                x=queries[:, 0],
                y=queries[:, 1],
                mode="markers+text",
                text=shown,
                textposition="top center",
                hovertext=labels,
                hovertemplate="query: %{hovertext}<extra></extra>",
                name="queries",
                marker={"symbol": QUERY_SYMBOL, "size": 10, "color": color},
            ),
        ]

    frames = [go.Frame(data=traces(q, k, c), name=name) for name, q, k, c in stages]
    everything = np.vstack([np.vstack([q, k]) for _, q, k, _ in stages])
    low, high = everything.min(axis=0) - 0.3, everything.max(axis=0) + 0.3
    step_args = {
        "frame": {"duration": duration_ms, "redraw": True},
        "transition": {"duration": duration_ms, "easing": "cubic-in-out"},
        "mode": "immediate",
    }
    fig = go.Figure(data=frames[0].data, frames=frames)
    fig.update_layout(
        title={"text": "Before → after: each head moves the same tokens differently", "y": 0.98},
        height=600,
        font={"size": FONT_SIZE},
        plot_bgcolor="white",
        xaxis={"range": [low[0], high[0]], "showticklabels": False, "title": "PC 1"},
        yaxis={
            "range": [low[1], high[1]],
            "showticklabels": False,
            "title": "PC 2",
            "scaleanchor": "x",
            "scaleratio": 1,
        },
        legend={"orientation": "h", "y": 1.0, "yanchor": "bottom", "x": 1, "xanchor": "right"},
        margin={"l": 10, "r": 10, "t": 90, "b": 110},
        updatemenus=[
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
                        "args": [None, {**step_args, "fromcurrent": True}],
                    },
                    {
                        "label": "❚❚ Pause",
                        "method": "animate",
                        "args": [
                            [None],
                            {
                                **step_args,
                                "frame": {"duration": 0, "redraw": False},
                                "transition": {"duration": 0},
                            },
                        ],
                    },
                ],
            }
        ],
        sliders=[
            {
                "active": 0,
                "x": 0,
                "len": 1.0,
                "y": 0,
                "yanchor": "top",
                "pad": {"t": 30},
                "currentvalue": {"prefix": "showing: ", "font": {"size": FONT_SIZE}},
                "steps": [
                    {"label": name, "method": "animate", "args": [[name], step_args]}
                    for name, *_ in stages
                ],
            }
        ],
    )
    return fig
