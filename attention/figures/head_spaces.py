"""The head-spaces view: the tokens before any head, each head's joint query/key picture
with the focus token's lines to its keys, each head's values with the focus token's
output as a star, and how far each head keeps the original
neighbour order. PCA coordinates have no units: no tick labels, equal scales."""

from __future__ import annotations

import math

import numpy as np
import plotly.graph_objects as go

from attention.figures.base.checks import check_shape
from attention.figures.base.grid import (
    PAGE_TITLE_CHARS,
    Panel,
    figure,
    framed_layout,
    grid,
    horizontal_line,
    line_label,
    panel_title_chars,
    title_lines,
    titled,
    wrapped_title,
)
from attention.figures.base.palette import (
    FOCUS_COLOR,
    FONT_SIZE,
    KEY_SYMBOL,
    OUTPUT_SYMBOL,
    QUERY_SYMBOL,
    TOKEN_COLOR,
    VALUE_SYMBOL,
    head_color,
)
from attention.figures.base.plane_tiles import PlaneTiles
from attention.figures.base.points import (
    label_sides,
    per_head_colors,
    points_trace,
    shown_labels,
    weighted_points_trace,
)
from attention.figures.base.segments import weighted_segments
from attention.figures.base.text import safe_label
from attention.geometry.head_spaces import HeadSpace, HeadSpaces
from attention.geometry.planes import Layout2D

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


def _plane_axes(layout: dict, panels: list[Panel]) -> None:
    """PCA coordinates have no units: no tick labels, equal scale on both axes."""
    for panel in panels:
        layout[panel.xaxis].update(PLANE_AXIS, title={"text": "PC 1", "standoff": 2})
        layout[panel.yaxis].update(PLANE_AXIS, title={"text": "PC 2", "standoff": 2})


def before_figure(before: Layout2D, tokens: list[str], focus: int) -> go.Figure:
    """The token vectors before any head: PCA of x, labelled, focus token ringed.
    The first trace's points are the tokens in order, so a click gives the token."""
    check_shape("before.coords", before.coords, (len(tokens), 2))
    labels = [safe_label(t) for t in tokens]
    xy = before.coords
    data = [
        points_trace(
            xy,
            mode="markers+text",
            text=shown_labels(labels, {focus}),
            textposition=label_sides(xy),
            hovertext=labels,
            customdata=np.arange(len(tokens)),
            hovertemplate="%{hovertext} (token %{customdata})<extra></extra>",
            marker={"size": 13, "color": TOKEN_COLOR, "line": {"width": 1, "color": "white"}},
            name="tokens",
        ),
        points_trace(
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


def check_spaces(spaces: HeadSpaces, n: int) -> None:
    """Every 2-D layout in `spaces` holds one point per token, n tokens."""
    check_shape("spaces.before.coords", spaces.before.coords, (n, 2))
    for h, space in enumerate(spaces.heads):
        _check_space(space, n, f"spaces.heads[{h}]")


def _check_space(space: HeadSpace, n: int, name: str = "space") -> None:
    """One head's 2-D layouts hold one point per token, n tokens."""
    for part in ("queries", "keys", "values", "outputs"):
        check_shape(f"{name}.{part}", getattr(space, part), (n, 2))


def _head_numbers(spaces: HeadSpaces, heads: list[int] | None) -> list[int]:
    """The heads (0-based) the panels show: 0, 1, … unless the caller names them."""
    numbers = list(range(len(spaces.heads))) if heads is None else list(heads)
    if len(numbers) != len(spaces.heads):
        raise ValueError(
            f"heads must hold one head number per head space ({len(spaces.heads)}); "
            f"got {len(numbers)}."
        )
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


def _query_key_traces(
    queries: np.ndarray,
    keys: np.ndarray,
    labels: list[str],
    w: np.ndarray,
    heads: list[int],
    focus: int,
) -> list[dict]:
    """The traces of each head's placed queries (●) and keys (◇), n per head, and the
    focus query's lines to the keys as wide as its weights `w` (heads, n)."""
    n = len(labels)
    focus_queries = queries[focus::n]
    data = _lines(np.repeat(focus_queries, n, axis=0), keys, w.ravel(), heads)
    data.append(
        weighted_points_trace(
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
    per = per_head_colors(heads, n, alpha=0.55)
    data.append(
        points_trace(
            queries,
            mode="markers",
            hovertext=labels * len(heads),
            customdata=per["head"],
            # the head in the label, not as <extra> (written in the point's faint colour)
            hovertemplate="query: %{hovertext}<br>head %{customdata}<extra></extra>",
            marker={"symbol": QUERY_SYMBOL, "size": 9, "color": per["colors"]},
            name="queries",
        )
    )
    data.append(
        points_trace(
            focus_queries,
            mode="markers+text",
            text=[labels[focus]] * len(heads),
            textposition="top center",
            textfont={"size": FONT_SIZE - 1, "color": FOCUS_COLOR},
            customdata=np.asarray(heads) + 1,
            hovertemplate=f"focus query: {labels[focus]}<br>head %{{customdata}}<extra></extra>",
            marker={
                "symbol": QUERY_SYMBOL,
                "size": 16,
                "color": [head_color(h) for h in heads],
                "line": {"width": 2.5, "color": FOCUS_COLOR},
            },
            name="focus query",
        )
    )
    return data


def _value_traces(
    values: np.ndarray,
    stars: np.ndarray,
    labels: list[str],
    w: np.ndarray,
    heads: list[int],
    focus: int,
) -> list[dict]:
    """The traces of each head's placed values (■), n per head, and the focus token's
    output ★ (one per head) joined to the values by lines as wide as its weights `w`."""
    n = len(labels)
    data = _lines(np.repeat(stars, n, axis=0), values, w.ravel(), heads)
    data.append(
        weighted_points_trace(
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
        points_trace(
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
    return data


def head_space_figure(
    spaces: HeadSpaces,
    tokens: list[str],
    weights: np.ndarray,
    focus: int,
    columns: int = 4,
    heads: list[int] | None = None,
    tile_px: int = PlaneTiles.tile_px,
    title_chars: int = PAGE_TITLE_CHARS,
    measured_titles: bool = True,
) -> go.Figure:
    """One tile per head: its queries (●) and keys (◇) in one joint 2-D layout, and the
    focus token's query joined to every key by a line as wide as its attention weight.
    `weights` (h, n, n) are the shown heads' own; `heads` numbers them (0-based). Titles
    name the head and, with `measured_titles`, the variance kept and ρ; wider than a
    tile's share of `title_chars` (the characters across the figure at its narrowest)
    they break into lines."""
    check_shape("weights", weights, (len(spaces.heads), len(tokens), len(tokens)))
    check_spaces(spaces, len(tokens))
    heads = _head_numbers(spaces, heads)
    labels = [safe_label(t) for t in tokens]
    titles, tiles = _titled_tiles(
        [
            f"head {h + 1} · var {s.variance_kept:.0%}<br>ρ 2-D {_fmt(s.rho.picture)} · "
            f"own {_fmt(s.rho.head_space)}"
            if measured_titles
            else f"head {h + 1}"
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
    data = _query_key_traces(queries, keys, labels, w, heads, focus)
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
    check_shape("weights", weights, (len(spaces.heads), len(tokens), len(tokens)))
    check_spaces(spaces, len(tokens))
    heads = _head_numbers(spaces, None)
    labels = [safe_label(t) for t in tokens]
    titles, tiles = _titled_tiles(
        [f"head {h + 1} · var {s.value_variance_kept:.0%}" for h, s in enumerate(spaces.heads)],
        columns,
        title_chars,
    )
    each_values = [s.values for s in spaces.heads]
    values, stars = tiles.stack(each_values, each_values, [s.outputs[focus] for s in spaces.heads])
    w = np.asarray(weights)[:, focus]
    data = _value_traces(values, stars, labels, w, heads, focus)
    return figure(data, _tiles_layout(tiles, titles, heads))


def query_key_value_figure(
    space: HeadSpace,
    tokens: list[str],
    weights: np.ndarray,
    focus: int,
    head: int,
    tile_px: int = PlaneTiles.tile_px,
    columns: int = 2,
    title_chars: int = PAGE_TITLE_CHARS,
) -> go.Figure:
    """One head (0-based `head`) in two tiles: its queries (●) and keys (◇) with the focus
    query's lines (left), and its values (■) with the focus token's output ★, their
    weighted sum (right; below with `columns` = 1, for a phone, titles broken to
    `title_chars`); `weights` (n, n) is the head's own."""
    n = len(tokens)
    check_shape("weights", weights, (n, n))
    _check_space(space, n)
    labels = [safe_label(t) for t in tokens]
    titles, tiles = _titled_tiles(
        [f"head {head + 1}: queries ●, keys ◇", f"head {head + 1}: values ■, output ★"],
        columns,
        title_chars,
        tile_px,
    )
    joint = tiles.place(0, np.vstack([space.queries, space.keys]))
    own = tiles.place(1, space.values)
    w = np.asarray(weights)[focus][None]  # (1, n)
    data = _query_key_traces(joint(space.queries), joint(space.keys), labels, w, [head], focus)
    data += _value_traces(own(space.values), own(space.outputs[focus][None]), labels, w,
                          [head], focus)  # fmt: skip
    return figure(data, _tiles_layout(tiles, titles, [head, head]))


def neighbour_order_chart(rank_corr: np.ndarray, focus_label: str) -> go.Figure:
    """Per head, the rank correlation between the focus token's neighbours by cosine in
    the original space and the keys its query scores highest in the head (full
    dimensions): 1 = the head keeps the original order."""
    check_shape("rank_corr", rank_corr, (None,))
    rho = np.asarray(rank_corr, dtype=np.float64)
    heads = len(rho)
    panels, layout = grid(1, 1)
    data = [
        {
            "type": "bar",
            "x": [f"head {h + 1}" for h in range(heads)],
            "y": np.round(np.nan_to_num(rho, nan=0.0), 4),
            "customdata": [f"{r:+.2f}" if np.isfinite(r) else "n/a" for r in rho],
            "marker": {"color": [head_color(h) for h in range(heads)]},
            "hovertemplate": "%{x}: ρ = %{customdata}<extra></extra>",
            "showlegend": False,
        }
    ]
    layout["xaxis"]["type"] = "category"
    layout["yaxis"].update(
        range=[-1.05, 1.1],
        title={"text": f"ρ(original order, head's order) for “{safe_label(focus_label)}”"},
    )
    layout["shapes"] = [horizontal_line(1.0, {"dash": "dot", "color": "#444444"}, panels[0])]
    layout["annotations"] = [line_label(1.0, "1: the original order kept", panels[0])]
    return figure(data, framed_layout(layout, 380))
