"""Points in a 2-D plane: the tokens before any head, each head's joint query/key
picture with the focus token's lines to its keys, each head's values with the focus
token's output as a star, the before → after motion, one cross-attention head's queries
and keys, the tokens after many stacked layers, and the tokens' path through a real
model's layers. PCA coordinates have no units: no tick labels, equal scales."""

from __future__ import annotations

import math

import numpy as np
import plotly.graph_objects as go
from plotly.colors import sample_colorscale

from attention.core.engine import AttentionTrace
from attention.figures.grid import (
    MARGIN,
    PAGE_TITLE_CHARS,
    Panel,
    figure,
    grid,
    panel_title_chars,
    title_lines,
    titled,
    titles_margin,
    wrapped_title,
)
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
from attention.figures.plane_tiles import PlaneTiles
from attention.figures.text import safe_label
from attention.geometry.head_spaces import HeadSpaces
from attention.geometry.planes import Layout2D, pca_2d
from attention.geometry.score_space import JointLayout

LAYER_SCALE = "Viridis"  # colour-blind-safe order from embeddings (light) to last layer
MAX_NAMED_TOKENS = 40  # the layer-path figure writes token names up to this many
MAX_SVG_TOKENS = 128  # and draws its points in SVG up to this many tokens, WebGL past it
MAX_SVG_POINTS = 2048  # a trace of more points is drawn with WebGL (12 heads × 512 tokens)
LABEL_ALL_UP_TO = 24  # more tokens than this: label only the focus and its top keys
PLANE_AXIS = {"showticklabels": False, "zeroline": False, "showgrid": True, "gridcolor": "#EEEEEE"}
# Top left, clear of Plotly's toolbar (top right). Entries get a fixed width: a PNG
# export draws the text in a fallback font, wider than the page's web font the legend
# was measured with, and would cut the last entry ("focus quer"). "normal" order keeps
# the entries in one row (grouped order gives each legend group a row of its own).
TOP_LEGEND = {
    "orientation": "h",
    "traceorder": "normal",
    "entrywidth": 120,
    "y": 0.99,
    "yanchor": "top",
    "x": 0.01,
    "xanchor": "left",
    "xref": "container",
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
    """A scatter trace of 2-D points; labels near an edge are drawn whole, not clipped.
    More than MAX_SVG_POINTS points are drawn with WebGL (no clipping option there)."""
    if len(xy) > MAX_SVG_POINTS:
        return {"type": "scattergl", "x": xy[:, 0], "y": xy[:, 1], **props}
    return {"type": "scatter", "x": xy[:, 0], "y": xy[:, 1], "cliponaxis": False, **props}


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
        height=460,
        font={"size": FONT_SIZE},
        showlegend=False,
        plot_bgcolor="white",
        margin={"l": 10, "r": 10, "t": 50, "b": 10},
        clickmode="event+select",
        dragmode="pan",
    )
    title = f"Before: the token vectors (variance kept {before.variance_kept:.0%})"
    return figure(data, titled(layout, title, share=0.5))


PANEL_X_TITLE = "PC 1 of each head's own PCA"
PANEL_Y_TITLE = "PC 2"


def _head_numbers(spaces: HeadSpaces, heads: list[int] | None) -> list[int]:
    """The heads (0-based) the panels show: 0, 1, … unless the caller names them."""
    numbers = list(range(len(spaces.heads))) if heads is None else list(heads)
    if len(numbers) != len(spaces.heads):
        raise ValueError(f"{len(spaces.heads)} head spaces but {len(numbers)} head numbers")
    return numbers


def _titled_tiles(
    titles: list[str], columns: int, title_chars: int, tile_px: int = PlaneTiles.tile_px
) -> tuple[list[str], PlaneTiles]:
    """One tile per title, in rows of `columns`: the titles broken to a tile's share of
    `title_chars`, and the tiles with room for the longest of them."""
    chars = panel_title_chars(title_chars, 1 / min(columns, len(titles)))
    wrapped = [wrapped_title(title, chars) for title in titles]
    return wrapped, PlaneTiles(len(titles), columns, tile_px, max(map(title_lines, wrapped)))


def _tiles_layout(tiles: PlaneTiles, titles: list[str], heads: list[int]) -> dict:
    """The head figures' layout: the tiles titled in their heads' colours, the legend on top."""
    colors = [head_color(h) for h in heads]
    return {
        **tiles.layout(titles, colors, PANEL_X_TITLE, PANEL_Y_TITLE),
        "font": {"size": FONT_SIZE},
        "plot_bgcolor": "white",
        "legend": TOP_LEGEND,
        # Room for the one-row legend Plotly reserves above the plot (it would otherwise
        # widen the top margin to ~67 px after drawing, and draw the chart again).
        "margin": {"l": 10, "r": 10, "t": 80, "b": 10},
    }


def _per_head(heads: list[int], n: int, alpha: float = 1.0) -> dict:
    """Per-point head number (for the hover) and head colour for `n` points per head."""
    colors = [with_alpha(head_color(h), alpha) for h in heads]
    return {
        "head": np.repeat(np.asarray(heads) + 1, n),
        "colors": [c for c in colors for _ in range(n)],
    }


def _weighted_points(
    coords: np.ndarray,
    labels: list[str],
    weights: np.ndarray,
    heads: list[int],
    named: list[set[int]],
    hover: str,
    marker: dict,
    name: str,
    alpha: float = 1.0,
) -> dict:
    """Every head's points the focus token's lines end on (keys or values), head after
    head, in one trace: each head's `named` points labelled, each point's weight and
    head in its hover (customdata = [weight, head number])."""
    n = len(labels)
    per = _per_head(heads, n, alpha=alpha)
    return _points(
        coords,
        mode="markers+text",
        text=[t for k in range(len(heads)) for t in _shown_labels(labels, named[k])],
        textposition="bottom center",
        textfont={"size": FONT_SIZE - 3},
        hovertext=labels * len(heads),
        customdata=np.column_stack(
            [np.round(np.ravel(weights).astype(np.float64), 4), per["head"]]
        ),
        hovertemplate=f"{hover}: %{{customdata[0]:.3f}}<extra>head %{{customdata[1]}}</extra>",
        marker={**marker, "color": per["colors"]},
        name=name,
    )


def _lines(starts: np.ndarray, ends: np.ndarray, weights: np.ndarray, heads: list[int]) -> list:
    """Each head's weighted lines from `starts` to `ends` (n per head), in its colour."""
    n = len(weights) // len(heads)
    traces = []
    for k, h in enumerate(heads):
        part = slice(k * n, (k + 1) * n)
        traces += weighted_segments(
            starts[part], ends[part], weights[part], head_color(h), f"head {h + 1}"
        )
    return traces


def head_space_figure(
    spaces: HeadSpaces,
    tokens: list[str],
    weights: np.ndarray,
    focus: int,
    columns: int = 4,
    heads: list[int] | None = None,
    tile_px: int = PlaneTiles.tile_px,
    title_chars: int = PAGE_TITLE_CHARS,
) -> go.Figure:
    """One tile per head: its queries (●) and keys (◇) in one joint 2-D layout, and the
    focus token's query joined to every key by a line as wide as its attention weight.
    `weights` (h, n, n) are the shown heads' own; `heads` numbers them (0-based). Titles
    wider than a tile's share of `title_chars` (the characters across the figure at its
    narrowest) break into lines."""
    heads = _head_numbers(spaces, heads)
    labels, n = [safe_label(t) for t in tokens], len(tokens)
    titles, tiles = _titled_tiles(
        [
            f"head {h + 1} · var {s.variance_kept:.0%}<br>ρ 2-D {_fmt(s.rho.picture)} · "
            f"own {_fmt(s.rho.head_space)}"
            for h, s in zip(heads, spaces.heads, strict=True)
        ],
        columns,
        title_chars,
        tile_px,
    )
    queries, keys = tiles.stack(
        [np.vstack([s.queries, s.keys]) for s in spaces.heads],
        [s.queries for s in spaces.heads],
        [s.keys for s in spaces.heads],
    )
    w = np.asarray(weights)[:, focus]  # (heads, n): each head's weights from the focus
    focus_queries = queries[focus::n]
    data = _lines(np.repeat(focus_queries, n, axis=0), keys, w.ravel(), heads)
    data.append(
        _weighted_points(
            keys,
            labels,
            w,
            heads,
            [set(np.argsort(-row)[:3].tolist()) | {focus} for row in w],
            "key: %{hovertext}<br>weight from the focus query",
            {"symbol": KEY_SYMBOL, "size": 11, "line": {"width": 2}},
            "keys",
        )
    )
    per = _per_head(heads, n, alpha=0.55)
    data.append(
        _points(
            queries,
            mode="markers",
            hovertext=labels * len(heads),
            customdata=per["head"],
            hovertemplate="query: %{hovertext}<extra>head %{customdata}</extra>",
            marker={"symbol": QUERY_SYMBOL, "size": 9, "color": per["colors"]},
            name="queries",
        )
    )
    data.append(
        _points(
            focus_queries,
            mode="markers+text",
            text=[labels[focus]] * len(heads),
            textposition="top center",
            textfont={"size": FONT_SIZE - 1, "color": FOCUS_COLOR},
            customdata=np.asarray(heads) + 1,
            hovertemplate=f"focus query: {labels[focus]}<extra>head %{{customdata}}</extra>",
            marker={
                "symbol": QUERY_SYMBOL,
                "size": 16,
                "color": [head_color(h) for h in heads],
                "line": {"width": 2.5, "color": FOCUS_COLOR},
            },
            name="focus query",
        )
    )
    return figure(data, _tiles_layout(tiles, titles, heads))


def values_figure(
    spaces: HeadSpaces,
    tokens: list[str],
    weights: np.ndarray,
    focus: int,
    columns: int = 4,
    title_chars: int = PAGE_TITLE_CHARS,
) -> go.Figure:
    """One tile per head: its values (■) in 2-D and the focus token's head output (★),
    the attention-weighted average of the values; lines show each value's share.
    `title_chars` as in head_space_figure."""
    heads = _head_numbers(spaces, None)
    labels, n = [safe_label(t) for t in tokens], len(tokens)
    titles, tiles = _titled_tiles(
        [f"head {h + 1} · var {s.value_variance_kept:.0%}" for h, s in enumerate(spaces.heads)],
        columns,
        title_chars,
    )
    each_values = [s.values for s in spaces.heads]
    values, stars = tiles.stack(each_values, each_values, [s.outputs[focus] for s in spaces.heads])
    w = np.asarray(weights)[:, focus]
    data = _lines(np.repeat(stars, n, axis=0), values, w.ravel(), heads)
    data.append(
        _weighted_points(
            values,
            labels,
            w,
            heads,
            [set(np.argsort(-row)[:3].tolist()) for row in w],
            "value of %{hovertext}<br>its weight in the output",
            {"symbol": VALUE_SYMBOL, "size": 10},
            "values",
            alpha=0.7,
        )
    )
    more = "<br>+ …" if n > 5 else ""
    recipes = [
        f"output of head {h + 1} for {labels[focus]}<br>= "
        + "<br>".join(f"{row[j]:.3f} × value of {labels[j]}" for j in np.argsort(-row)[:5])
        + more
        for h, row in zip(heads, w, strict=True)
    ]
    data.append(
        _points(
            stars,
            mode="markers",
            hovertext=recipes,
            hovertemplate="%{hovertext}<extra></extra>",
            marker={
                "symbol": OUTPUT_SYMBOL,
                "size": 22,
                "color": [head_color(h) for h in heads],
                "line": {"width": 1.5, "color": FOCUS_COLOR},
            },
            name=f"head output for {labels[focus]}",
        )
    )
    return figure(data, _tiles_layout(tiles, titles, heads))


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
) -> go.Figure:
    """Tokens glide from their original positions into each head's query/key space,
    head after head, resting `hold_ms` on each: Plotly frames played in the browser, no
    server round trip. Stage `start` (0 = before, h = head h) is drawn first and Play
    goes on from it. Each move is a frame of its own ("to head k") with no slider step,
    so the slider's "showing" label changes when the points arrive, not when they leave."""
    labels = [safe_label(t) for t in tokens]
    shown = _shown_labels(labels, set())
    n = len(tokens)
    before = _unit_spread(spaces.before.coords)
    stages = [("before", before, before, TOKEN_COLOR)]
    for h, space in enumerate(spaces.heads):
        both = _unit_spread(np.vstack([space.queries, space.keys]))
        stages.append((f"head {h + 1}", both[:n], both[n:], head_color(h)))
    start = min(max(start, 0), len(stages) - 1)

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
    # Queries named above, keys below: a query and the key it matches often coincide.
    for coords, tokens, symbol, side, place in (
        (layout.queries, query_tokens, QUERY_SYMBOL, "query (decoder)", "top center"),
        (layout.keys, key_tokens, KEY_SYMBOL, "key (encoder)", "bottom center"),
    ):
        data.append(
            {
                "type": "scatter",
                "x": np.round(coords[:, 0], 4),
                "y": np.round(coords[:, 1], 4),
                "mode": "markers+text",
                "text": [safe_label(t) for t in tokens],
                "textposition": place,
                "marker": {"symbol": symbol, "size": 16, "color": color, "line": {"width": 2}},
                "name": side,
                "hovertemplate": f"{side}: %{{text}}<extra></extra>",
            }
        )
    corr = layout.rho.picture
    shown = f"{corr:+.2f}" if np.isfinite(corr) else "n/a (all scores equal)"
    plane = {"showticklabels": False, "zeroline": False}
    fig_layout = {
        "title": {  # two lines: one is wider than the picture in a column at 1280 px
            "text": f"{safe_label(title, 40)} · 2-D keeps {100 * layout.variance_kept:.0f} % "
            f"of the spread<br>ρ(score, −distance) = {shown}"
        },
        "xaxis": {**plane, "title": {"text": "PC 1"}},
        "yaxis": {**plane, "title": {"text": "PC 2"}, "scaleanchor": "x"},
        "legend": {"orientation": "h", "y": -0.12, "x": 0},
        "height": 520,
        "margin": {**MARGIN, "t": 80},
        "font": {"size": FONT_SIZE},
    }
    return figure(data, fig_layout)


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


def layer_path_figure(
    hidden_states: np.ndarray, tokens: list[str], max_labels: int = MAX_NAMED_TOKENS
) -> go.Figure:
    """Each token's path through the (layers + 1, n, d) hidden states in ONE PCA fitted
    on all of them, so every layer's move is drawn on the same axes. Tokens are named at
    their first point when there are at most `max_labels` of them; past MAX_SVG_TOKENS
    tokens the points are drawn with WebGL (faster at 512 tokens; at 128 creating the
    WebGL context costs more than drawing the points in SVG, in headless Chromium)."""
    steps, n, d = hidden_states.shape
    kind = "scatter" if n <= MAX_SVG_TOKENS else "scattergl"
    layout = pca_2d(hidden_states.reshape(steps * n, d))
    coords = np.round(layout.coords, 3).reshape(steps, n, 2)  # 0.001: a fraction of a pixel
    labels = [safe_label(t) for t in tokens]
    names = ["embeddings"] + [f"after layer {i}" for i in range(1, steps)]
    colors = sample_colorscale(LAYER_SCALE, list(np.linspace(0.0, 0.85, steps)))
    paths = np.full((n, steps + 1, 2), np.nan)
    paths[:, :steps] = coords.transpose(1, 0, 2)
    data = [
        {
            "type": kind,
            "x": paths[..., 0].ravel(),
            "y": paths[..., 1].ravel(),
            "mode": "lines",
            "line": {"color": f"rgba(120,120,120,{0.45 if n <= 64 else 0.12})", "width": 1.5},
            "name": "a token's path",
            "hoverinfo": "skip",
        }
    ]
    for step in range(steps):
        show_text = step == 0 and n <= max_labels
        data.append(
            {
                "type": kind,
                "x": coords[step, :, 0],
                "y": coords[step, :, 1],
                "mode": "markers+text" if show_text else "markers",
                **({"text": labels} if show_text else {}),
                "textposition": "top center",
                "textfont": {"size": FONT_SIZE - 2},
                "customdata": labels,
                "marker": {"color": colors[step], "size": 10, "line": {"width": 0.5}},
                "name": names[step],
                "hovertemplate": f"%{{customdata}}<br>{names[step]}<br>"
                "PC1 %{x:.2f}, PC2 %{y:.2f}<extra></extra>",
            }
        )
    axis = {"zeroline": False, "showgrid": True, "gridcolor": "#EEEEEE"}
    fig_layout = {
        "xaxis": {"title": {"text": "principal axis 1"}, **axis},
        "yaxis": {"title": {"text": "principal axis 2"}, **axis},
        "legend": {"title": {"text": "hidden state"}},
        "height": 640,
        "font": {"size": FONT_SIZE},
        "margin": {"l": 60, "r": 10, "t": 60, "b": 50},
        "plot_bgcolor": "white",
    }
    title = (
        f"One PCA of all {steps} hidden states: the two axes keep "
        f"{layout.variance_kept:.0%} of their variance"
    )
    return figure(data, titled(fig_layout, title))


def _marked(
    xy: np.ndarray, symbol: str, size: int, color: str, hover: str, text: str | None = None
) -> dict:
    """One point drawn large with the focus outline (the query, or a head's output ★)."""
    return _points(
        np.asarray(xy)[None],
        mode="markers+text" if text else "markers",
        text=[text] if text else None,
        textposition="top center",
        marker={"symbol": symbol, "size": size, "color": color,
                "line": {"width": 2, "color": FOCUS_COLOR}},
        hovertemplate=f"{hover}<extra></extra>",
        showlegend=False,
    )  # fmt: skip


def lecture_figure(
    tokens: list[str], x: np.ndarray, trace: AttentionTrace, query: int
) -> go.Figure:
    """The lecture's picture with nothing projected: 2-D tokens, then per head its queries
    (●) and keys (◇) as the engine computes them, the query token's lines to the keys as
    wide as its weights, and beside them the head's values (■) with the query's output
    (★), the weighted sum of the values. Every coordinate is the model's own."""
    labels = [safe_label(t) for t in tokens]
    heads = trace.q.shape[0]
    titles = ["tokens (2-D)"]
    for h in range(heads):
        titles += [f"head {h + 1}: query ●, keys ◇", f"head {h + 1}: values ■, ★"]
    colors = [None] + [head_color(h) for h in range(heads) for _ in range(2)]
    panels, layout = grid(len(titles), 3, titles, colors, h_gap=0.05, equal_aspect=True)
    data = [
        panels[0].place(
            _points(
                np.asarray(x),
                mode="markers+text",
                text=labels,
                textposition="top center",
                marker={"size": 11, "color": TOKEN_COLOR},
                hovertemplate="%{text}: (%{x:.2f}, %{y:.2f})<extra></extra>",
                showlegend=False,
            )
        )
    ]
    for h in range(heads):
        color, w = head_color(h), trace.weights[h, query]
        keys_panel, values_panel = panels[1 + 2 * h], panels[2 + 2 * h]
        q, k, v = trace.q[h], trace.k[h], trace.v[h]
        star = trace.heads[h, query]
        named = set(np.argsort(-w)[:2].tolist())
        traces = weighted_segments(np.repeat(q[query][None], len(tokens), 0), k, w, color, "")
        traces += [
            _weighted_points(
                k,
                labels,
                w,
                [h],
                [set(range(len(tokens)))],
                "key; weight from the query",
                {"symbol": KEY_SYMBOL, "size": 11, "line": {"width": 2}},
                "keys",
            ),
            _marked(q[query], QUERY_SYMBOL, 15, color, f"query of {labels[query]}",
                    labels[query]),
        ]  # fmt: skip
        data += [keys_panel.place(t) for t in traces]
        traces = weighted_segments(np.repeat(star[None], len(tokens), 0), v, w, color, "")
        traces += [
            _weighted_points(
                v,
                labels,
                w,
                [h],
                [named],
                "value; its weight in the output",
                {"symbol": VALUE_SYMBOL, "size": 10},
                "values",
                alpha=0.7,
            ),
            _marked(star, OUTPUT_SYMBOL, 22, color, f"output of head {h + 1} for {labels[query]}"),
        ]
        data += [values_panel.place(t) for t in traces]
    for panel in panels:
        layout[panel.xaxis].update(zeroline=False, showgrid=True, gridcolor="#EEEEEE")
        layout[panel.yaxis].update(zeroline=False, showgrid=True, gridcolor="#EEEEEE")
    layout.update(
        height=2 * 360 + 60,
        font={"size": FONT_SIZE},
        plot_bgcolor="white",
        showlegend=False,
        margin={"l": 10, "r": 10, "t": 60, "b": 10},
    )
    return figure(data, layout)
