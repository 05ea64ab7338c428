"""The lesson's figures: the lecture's picture with nothing projected, and any figure
made ready for a slide (a caption inside the image, fonts scaled for a projector)."""

from __future__ import annotations

import re
import textwrap
from itertools import pairwise

import numpy as np
import plotly.graph_objects as go

from attention.core.engine import AttentionTrace
from attention.figures.base.checks import check_shape
from attention.figures.base.grid import (
    figure,
    grid,
)
from attention.figures.base.palette import (
    FONT_SIZE,
    KEY_SYMBOL,
    OUTPUT_SYMBOL,
    QUERY_SYMBOL,
    TOKEN_COLOR,
    VALUE_SYMBOL,
    head_color,
)
from attention.figures.base.points import (
    marked_point,
    points_trace,
    weighted_points_trace,
)
from attention.figures.base.segments import weighted_segments
from attention.figures.base.text import safe_label
from attention.figures.base.theme import MUTED

_LECTURE_ROW_PX = 360  # one row of the lecture's panels
_LECTURE_GAP_PX = 142  # between two rows: a two-line title under the ticks of the panel above
_LECTURE_EDGES_PX = 70  # the figure's top and bottom margins


def lecture_figure(
    tokens: list[str], x: np.ndarray, trace: AttentionTrace, query: int, columns: int = 3
) -> go.Figure:
    """The lecture's picture with nothing projected: 2-D tokens, then per head its queries
    (●) and keys (◇) as the engine computes them, the query token's lines to the keys as
    wide as its weights, and beside them the head's values (■) with the query's output
    (★), the weighted sum of the values. Every coordinate is the model's own. `columns`
    = 1 draws one panel per row (a phone); the marks' key then has no free cell and the
    panel titles name the marks."""
    check_shape("x", x, (len(tokens), 2))
    check_shape("trace.weights", trace.weights, (None, len(tokens), len(tokens)))
    labels = [safe_label(t) for t in tokens]
    heads = trace.q.shape[0]
    titles = ["tokens (2-D)"]
    for h in range(heads):
        titles += [f"head {h + 1}: query ●, keys ◇", f"head {h + 1}: values ■, ★"]
    colors = [None] + [head_color(h) for h in range(heads) for _ in range(2)]
    rows = -(-len(titles) // columns)
    height = rows * _LECTURE_ROW_PX + 60
    # v_gap: a two-line title under the ticks of the panel above, at a projector's 1.3×
    v_gap = _LECTURE_GAP_PX / (height - _LECTURE_EDGES_PX)
    panels, layout = grid(
        len(titles), columns, titles, colors, h_gap=0.05, v_gap=v_gap, equal_aspect=True
    )
    data = [
        panels[0].place(
            points_trace(
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
            weighted_points_trace(
                k,
                labels,
                w,
                [h],
                [set(range(len(tokens)))],
                "key; weight from the query",
                {"symbol": KEY_SYMBOL, "size": 11, "line": {"width": 2}},
                "keys",
            ),
            marked_point(q[query], QUERY_SYMBOL, 15, color, f"query of {labels[query]}",
                    labels[query]),
        ]  # fmt: skip
        data += [keys_panel.place(t) for t in traces]
        traces = weighted_segments(np.repeat(star[None], len(tokens), 0), v, w, color, "")
        traces += [
            weighted_points_trace(
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
            marked_point(
                star, OUTPUT_SYMBOL, 22, color, f"output of head {h + 1} for {labels[query]}"
            ),
        ]
        data += [values_panel.place(t) for t in traces]
    for panel in panels:
        layout[panel.xaxis].update(zeroline=False, showgrid=True, gridcolor="#EEEEEE")
        layout[panel.yaxis].update(zeroline=False, showgrid=True, gridcolor="#EEEEEE")
    layout.update(
        height=height,
        font={"size": FONT_SIZE},
        plot_bgcolor="white",
        showlegend=False,
        margin={"l": 10, "r": 10, "t": 60, "b": 10},
        annotations=[*layout.get("annotations", []), *_symbol_key(layout, panels, labels[query])],
    )
    return figure(data, layout)


def _symbol_key(layout: dict, panels: list, query_label: str) -> list[dict]:
    """What the marks mean, written in the grid's free cell (the last row's last column);
    nothing when the panels fill the grid."""
    columns = 1 + max(p.col for p in panels)
    if panels[-1].col == columns - 1:
        return []
    x0, x1 = layout[panels[columns - 1].xaxis]["domain"]
    y0, y1 = layout[panels[-1].yaxis]["domain"]
    return [
        {
            "text": f"● query: {query_label}<br>◇ keys<br>line width: weight<br>■ values"
            "<br>★ output:<br>Σ weight × value",
            "xref": "paper",
            "yref": "paper",
            "x": x0 + 0.05 * (x1 - x0),
            "y": (y0 + y1) / 2,
            "xanchor": "left",
            "yanchor": "middle",
            "align": "left",
            "showarrow": False,
            "font": {"size": FONT_SIZE - 1, "color": TOKEN_COLOR},
        }
    ]


_FONT_KEYS = {"font", "tickfont", "textfont", "insidetextfont", "outsidetextfont"}


PLOTLY_DEFAULT_FONT = 12
CAPTION_FONT = 12  # px before the presenter's scale (× 1.3: 16 px on a projector)
CAPTION_CHARS = 72  # a caption line's characters: it fits half of a 1280 px window at 1.3×
PHONE_CAPTION_CHARS = 44  # … and the width of a 390 px phone
LABEL_ROOM = 28  # px above the plot for a point's label that stands over its top edge
TITLE_PAD = 24  # px above the title: the chart's first pixels sit under the step's buttons
LEGEND_PAD = 8  # px between a legend moved to the bottom and the plot's lowest text


def _scaled(node: object, factor: float, under_font: bool = False) -> object:
    """A copy of a figure dict with every font size multiplied by `factor`."""
    if isinstance(node, dict):
        return {
            key: (
                round(value * factor, 1)
                if under_font and key == "size" and isinstance(value, int | float)
                else _scaled(value, factor, key in _FONT_KEYS)
            )
            for key, value in node.items()
        }
    if isinstance(node, list):
        return [_scaled(item, factor) for item in node]
    return node


def _note_px(note: dict, size: float) -> float:
    """An annotation's height in px: its lines of its font (else `size`), and its shift."""
    lines = note.get("text", "").count("<br>") + 1
    return 1.3 * lines * note.get("font", {}).get("size", size) + note.get("yshift", 0)


def _panel_titles_px(layout: dict) -> float:
    """The height of the tallest panel title standing on the plot's top edge (a grid's
    top row), which the caption must stay above; 0 when there is none."""
    heights = [
        _note_px(note, layout["font"]["size"])
        for note in layout.get("annotations", [])
        if note.get("yref") == "paper" and note.get("y", 0) >= 0.999
        and note.get("yanchor") == "bottom"
    ]  # fmt: skip
    return max(heights, default=0.0)


_X_AXIS = re.compile(r"xaxis\d*")
LINE = 1.3  # a text line's height per px of font
TICK_ROOM = 8  # px between a tick label and its axis line, and under a row's texts


def _needed_px(layout: dict, below: tuple, above: tuple) -> float:
    """The height the gap between two rows of panels must hold: the tick labels and axis
    titles under the row `above`, and the panel titles standing on the row `below`."""
    size = layout["font"]["size"]

    def text_px(text: str, font: dict) -> float:
        return LINE * (text.count("<br>") + 1) * font.get("size", size)

    under_above = [0.0]
    for key, axis in layout.items():
        if not _X_AXIS.fullmatch(key) or not axis.get("visible", True):
            continue
        y_axis = layout.get("yaxis" + axis.get("anchor", "y")[1:], {})
        if tuple(y_axis.get("domain", ())) != above:
            continue
        ticks = text_px("", axis.get("tickfont", {})) if axis.get("showticklabels", True) else 0
        title = axis.get("title", {})
        titled = text_px(title["text"], title.get("font", {})) if title.get("text") else 0
        under_above.append(ticks + titled + TICK_ROOM)
    on_below = [0.0] + [
        _note_px(note, size)
        for note in layout.get("annotations", [])
        if note.get("yref") == "paper" and note.get("yanchor") == "bottom"
        and abs(note.get("y", -1) - below[1]) < 1e-6
    ]  # fmt: skip
    return max(under_above) + max(on_below) + TICK_ROOM


def _rows_keep_their_gaps(layout: dict, least_px: float) -> None:
    """Widen the gaps between `layout`'s rows of panels where, in a plot area as short as
    `least_px`, they would not hold their texts (_needed_px); the rows share what is left,
    and everything placed on the page's height moves with its row. A slide's figure fills
    a window shorter than the one it was laid out for, and a projector's fonts are larger:
    as fractions, the gaps had left a panel title no room under the ticks above it."""
    axes = [axis for key, axis in layout.items() if key.startswith("yaxis") and "domain" in axis]
    rows = sorted({tuple(axis["domain"]) for axis in axes})
    gaps = [above[0] - below[1] for below, above in pairwise(rows)]
    if not gaps or least_px <= 0 or min(gaps) < 0:
        return  # one row, or rows that overlap (not a grid)
    gaps = [
        max(gap, _needed_px(layout, below, above) / least_px)
        for gap, (below, above) in zip(gaps, pairwise(rows), strict=True)
    ]
    heights = [top - bottom for bottom, top in rows]
    shrink = (rows[-1][1] - rows[0][0] - sum(gaps)) / sum(heights)
    if shrink < 0.5 or shrink >= 1:
        return  # room enough already, or the panels would lose half their height
    old = [y for row in rows for y in row]  # each row's bottom and top, upwards
    new = [rows[0][0]]
    for index, height in enumerate(heights):
        if index:
            new.append(new[-1] + gaps[index - 1])
        new.append(new[-1] + height * shrink)

    def moved(y: float) -> float:
        return float(np.interp(y, old, new)) if old[0] <= y <= old[-1] else y

    for axis in axes:
        axis["domain"] = [moved(axis["domain"][0]), moved(axis["domain"][1])]
    for note in layout.get("annotations", []):
        if note.get("yref") == "paper" and "y" in note:
            note["y"] = moved(note["y"])
    for shape in layout.get("shapes", []):
        if shape.get("yref") == "paper":
            shape.update(y0=moved(shape["y0"]), y1=moved(shape["y1"]))


def for_slides(
    fig: go.Figure,
    caption: list[str],
    font_scale: float = 1.0,
    fill_height: bool = False,
    caption_chars: int = CAPTION_CHARS,
    keep_plot: bool = False,
    least_height: int = 0,
) -> go.Figure:
    """`fig` with the `caption` lines written small inside it, at the top (escaped: they
    hold the user's sentence) in lines of at most `caption_chars`, fonts × `font_scale`,
    and with `fill_height` no fixed height (the page's container decides it, at least
    `least_height` px: the gaps between rows of panels hold their texts there). With
    `keep_plot` the figure grows by the caption's room instead of its plot shrinking (a
    phone: the caption's many short lines squeezed the panels' gaps until titles met)."""
    spec = fig.to_dict()
    layout = dict(spec.get("layout", {}))  # the figure's own dicts stay as they were
    layout["font"] = {"size": PLOTLY_DEFAULT_FONT, **layout.get("font", {})}
    spec["layout"] = layout
    if font_scale != 1.0:
        spec = _scaled(spec, font_scale)
        layout = spec["layout"]
    lines = [part for line in caption for part in textwrap.wrap(line, caption_chars)]
    text = "<br>".join(safe_label(line, caption_chars) for line in lines)
    size = round(CAPTION_FONT * font_scale)
    note = {"text": text, "font": {"size": size, "color": MUTED}}
    # The caption goes at the top, under the figure's title when it has one (a caption
    # at the bottom edge would be cut when the window is short), pinned there; the top
    # margin fits it with room for point labels that stand over the plot's top edge.
    title = layout.get("title", {})
    if title.get("text"):
        pinned, title_lines = {**title, "subtitle": note}, title["text"].count("<br>") + 1
    else:
        pinned, title_lines = {**note, "xref": "container", "x": 0.01, "xanchor": "left"}, 0
    layout["title"] = {**pinned, "yref": "container", "y": 1, "yanchor": "top",
                       "pad": {"t": TITLE_PAD}}  # fmt: skip
    title_px = title.get("font", {}).get("size", 1.4 * layout["font"]["size"])
    room = TITLE_PAD + 1.3 * (title_lines * title_px + len(lines) * size) + LABEL_ROOM
    room += _panel_titles_px(layout)
    margin = layout.get("margin", {})
    plot_px = layout.get("height", 450) - margin.get("t", 80) - margin.get("b", 80)
    layout["margin"] = {**margin, "t": round(max(margin.get("t", 80), room))}
    if keep_plot:
        grown = layout["margin"]["t"] - margin.get("t", 80)
        layout["height"] = layout.get("height", 450) + grown
    legend = layout.get("legend", {})
    if legend.get("yref", "paper") == "paper" and legend.get("y", 0) < 0 and not fill_height:
        # A legend under the plot, placed in fractions of the plot's height: as many
        # pixels under it as before the caption's room shrank the plot (it had moved up
        # onto the axis title).
        shrunk_px = layout.get("height", 450) - layout["margin"]["t"] - margin.get("b", 80)
        layout["legend"] = {**legend, "y": legend["y"] * plot_px / shrunk_px}
    if legend.get("yref") == "container" and legend.get("y", 0) > 0.5:
        # A legend at the figure's top would sit on the caption: it goes to the bottom,
        # with a row of room under the plot.
        layout["legend"] = {**legend, "y": 0, "yanchor": "bottom"}
        row = 1.6 * legend.get("font", {}).get("size", layout["font"]["size"])
        layout["margin"]["b"] = round(layout["margin"].get("b", 80) + row + LEGEND_PAD)
    if fill_height:
        layout.pop("height", None)
        layout["autosize"] = True
        least_px = least_height - layout["margin"]["t"] - layout["margin"].get("b", 80)
        _rows_keep_their_gaps(layout, least_px)
    return figure(spec.get("data", []), layout, spec.get("frames"))
