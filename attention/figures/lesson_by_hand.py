"""The Lesson's "by hand" step: first the ingredients (one head's query for the focus
token, every key and every value, coordinate by coordinate, with no score yet), then,
once the class has predicted the winning key, the arithmetic as a table: q · k, the
score q · k / √d_head, the softmax and the weighted sum of the values."""

from __future__ import annotations

import numpy as np
import plotly.graph_objects as go

from attention.analysis.by_hand import ByHand
from attention.figures.base.grid import HALF_PAGE_TITLE_CHARS, figure, grid
from attention.figures.base.palette import FONT_SIZE, head_color, signed_axis
from attention.figures.base.text import safe_label, unique_labels
from attention.figures.base.theme import TEXT_COLOR

SHOWN_COORDS = 2  # coordinates of each value written in the table (all are in the hover)
WINNER_FILL = "#DCEAF7"


_STACKED_GAP_PX = 130  # between the maps one above the other: ticks, axis title, title


def ingredients_figure(
    tokens: list[str], hand: ByHand, focus: int, head: int, columns: int = 2
) -> go.Figure:
    """Heatmaps of the query of `tokens[focus]` (top row) above every key, and beside
    them every value: the numbers a student multiplies, with no score or weight drawn.
    `columns` = 1 puts the values below, each map as wide as the figure (a phone)."""
    n, d_head = hand.keys.shape
    keys = unique_labels(tokens)
    query_row = f"query of {safe_label(tokens[focus])}"
    rows = [query_row, " ", *keys]  # a blank row between the query and the keys
    blank = np.full((1, d_head), np.nan)
    left = np.vstack([hand.query[None], blank, hand.keys])
    right = np.vstack([blank, blank, hand.values])
    titles = [f"head {head + 1}: query and keys", f"head {head + 1}: values"]
    stacked = columns == 1
    maps_px = 28 * (n + 2) * (2 if stacked else 1) + (_STACKED_GAP_PX if stacked else 0)
    panels, layout = grid(
        2,
        columns,
        titles,
        [head_color(head)] * 2,
        h_gap=0.06,
        v_gap=_STACKED_GAP_PX / (maps_px + 50),
        title_chars=HALF_PAGE_TITLE_CHARS,
    )
    coordinates = list(range(1, d_head + 1))
    data = [
        panel.place(
            {
                "type": "heatmap",
                "z": z,
                "x": coordinates,
                "y": rows,
                "coloraxis": "coloraxis",
                "hoverongaps": False,
                "hovertemplate": f"%{{y}}, coordinate %{{x}}: %{{z:.2f}}<extra>{what}</extra>",
            }
        )
        for panel, z, what in zip(panels, (left, right), ("query / key", "value"), strict=True)
    ]
    for panel in panels:
        layout[panel.xaxis].update(title={"text": f"coordinate (1–{d_head})"}, showgrid=False)
        layout[panel.yaxis].update(autorange="reversed", type="category", showgrid=False)
    layout[panels[1].yaxis].update(showticklabels=stacked)  # beside: the left's labels
    layout.update(
        coloraxis=signed_axis(hand.query, hand.keys, hand.values, title="number"),
        height=120 + maps_px,
        font={"size": FONT_SIZE},
        plot_bgcolor="white",
        margin={"l": 10, "r": 10, "t": 60, "b": 10},
    )
    return figure(data, layout)


def _vector(values: np.ndarray) -> str:
    return "  ".join(f"{v:+.2f}" for v in values[:SHOWN_COORDS])


def arithmetic_figure(tokens: list[str], hand: ByHand, focus: int, head: int) -> go.Figure:
    """The query's arithmetic as a table, one row per key and a last row for the sums:
    q · k, score, e^(score − max), weight (e^… over their sum), and the value's first
    coordinates with the output ★'s under them."""
    keys = unique_labels(tokens)
    header = [
        "key",
        "q · k",
        f"÷ √{hand.d_head}",
        "e^(s − max)",
        "weight",
        f"value v, {SHOWN_COORDS} of {hand.d_head}",
    ]
    columns = [
        [*keys, "<b>Σ</b>"],
        [f"{v:+.2f}" for v in hand.dots] + [""],
        [f"{v:+.2f}" for v in hand.scores] + [""],
        [f"{v:.3f}" for v in hand.exps] + [f"{hand.exps.sum():.3f}"],
        [f"{v:.3f}" for v in hand.weights] + [f"{hand.weights.sum():.3f}"],
        [_vector(v) for v in hand.values] + [f"<b>★ {_vector(hand.output)}</b>"],
    ]
    fills = ["white"] * len(keys) + ["#F2F2F2"]
    fills[hand.winner] = WINNER_FILL
    cell_px = FONT_SIZE + 14
    table = {
        "type": "table",
        "columnwidth": [1.1, 0.9, 1.1, 1.1, 0.9, 1.5],
        "header": {
            "values": [f"<b>{h}</b>" for h in header],
            "fill": {"color": "#EEEEEE"},
            "align": "left",
            "font": {"size": FONT_SIZE - 2, "color": TEXT_COLOR},  # the numbers: body text
            "height": cell_px,
        },
        "cells": {
            "values": columns,
            "fill": {"color": [fills]},
            "align": ["left", "right", "right", "right", "right", "left"],
            "font": {"size": FONT_SIZE - 2, "color": TEXT_COLOR},
            "height": cell_px,
        },
    }
    title = f"head {head + 1}: {safe_label(tokens[focus])}'s query by hand; ★ = Σ weight × v"
    layout = {
        "title": {"text": title, "font": {"size": FONT_SIZE}, "x": 0.01, "xanchor": "left"},
        "height": 170 + cell_px * (len(keys) + 2),  # the caption goes under the title
        "font": {"size": FONT_SIZE},
        "margin": {"l": 10, "r": 10, "t": 60, "b": 10},
    }
    return figure([table], layout)
