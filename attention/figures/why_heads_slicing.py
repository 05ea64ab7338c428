""" "Why several heads?": the "heads slice the embedding" misconception: W_Q as it is
beside the block-diagonal matrix slicing would mean, and how much of W_Q each head keeps
in its own slice."""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np
import plotly.graph_objects as go

from attention.core.validation import check_positive_int
from attention.figures.base.checks import check_shape
from attention.figures.base.grid import (
    PAGE_TITLE_CHARS,
    figure,
    framed_layout,
    grid,
    horizontal_line,
    line_label,
    titles_margin,
    vertical_line,
)
from attention.figures.base.palette import (
    FONT_SIZE,
    head_color,
    signed_axis,
)


def slice_share_chart(shares: Mapping[str, np.ndarray]) -> go.Figure:
    """Per head, for each named W_Q, the share of its squared weights in its own slice's
    rows ((h,) each, attention.experiments.slicing.own_slice_share). Slicing would make
    it 100 %; reading every coordinate evenly gives 1/h."""
    for name, share in shares.items():
        check_shape(f"shares of {name}", share, (None,))
    panels, layout = grid(len(shares), len(shares), list(shares), h_gap=0.2 / len(shares))
    data, shapes = [], []
    for panel, own_share in zip(panels, shares.values(), strict=True):
        share = np.asarray(own_share) * 100
        n_heads = len(share)
        data.append(
            panel.place(
                {
                    "type": "bar",
                    "x": [f"head {h + 1}" for h in range(n_heads)],
                    "y": share,
                    "marker": {"color": [head_color(h) for h in range(n_heads)]},
                    "hovertemplate": "%{x}: %{y:.1f} % of its weight in its own slice"
                    "<extra></extra>",
                    "showlegend": False,
                }
            )
        )
        even = 100 / n_heads
        for y, dash, text in ((even, "dash", f"1/h = {even:.0f} %: reads evenly"),
                              (100, "dot", "100 %: slicing")):  # fmt: skip
            shapes.append(horizontal_line(y, {"dash": dash, "color": "#444444"}, panel))
            layout["annotations"].append(line_label(y, text, panel))
        layout[panel.xaxis]["type"] = "category"
        if panel.index:  # every panel shares the first one's percentage axis
            layout[panel.yaxis].update(matches="y", showticklabels=False)
    layout["yaxis"].update(title={"text": "% of W_Q weight in own slice"}, range=[0, 110])
    layout["shapes"] = shapes
    return figure(data, framed_layout(layout, 360))


def slicing_figure(
    whole: np.ndarray,
    cut: np.ndarray,
    n_heads: int,
    title_chars: int = PAGE_TITLE_CHARS,
    columns: int = 2,
) -> go.Figure:
    """W_Q as one d_model × h·d_head matrix `whole`, each of the `n_heads` heads' column
    blocks under a bar of its colour (left), beside `cut`, the block-diagonal matrix
    slicing would mean (both from attention.experiments.slicing.slicing_matrices);
    `title_chars` as in grid.grid; `columns` = 1 puts `cut` below (a phone)."""
    check_shape("whole", whole, (None, None))
    d_model, width = np.shape(whole)
    n_heads = check_positive_int("n_heads", n_heads)
    if width % n_heads:
        raise ValueError(
            f"whole must have shape (any, a multiple of n_heads={n_heads}); "
            f"got shape {np.shape(whole)}."
        )
    check_shape("cut", cut, (d_model, width))
    d_head = width // n_heads
    custom = np.broadcast_to(np.arange(n_heads * d_head) // d_head + 1, whole.shape)
    titles = [
        "W_Q as it is: every head reads every coordinate",
        "If heads sliced the embedding (not what happens)",
    ]
    panels, layout = grid(2, columns, titles, h_gap=0.08, title_chars=title_chars)
    margin = titles_margin(layout)
    data, shapes, notes = [], [], []
    for panel, matrix in zip(panels, (whole, cut), strict=True):
        data.append(
            panel.place(
                {
                    "type": "heatmap",
                    "z": np.round(matrix, 3),
                    "customdata": custom,
                    "coloraxis": "coloraxis",
                    "hovertemplate": "input coordinate %{y}<br>head %{customdata}, column %{x}"
                    "<br>weight %{z:.3f}<extra></extra>",
                }
            )
        )
        for h in range(n_heads):
            x0, x1 = h * d_head - 0.5, (h + 1) * d_head - 0.5
            shapes.append(
                {
                    "type": "rect",
                    "x0": x0,
                    "x1": x1,
                    "y0": -0.5 - d_model * 0.06,
                    "y1": -0.5,
                    "fillcolor": head_color(h),
                    "line": {"width": 0},
                    "xref": panel.x,
                    "yref": panel.y,
                }
            )
            notes.append(
                {
                    "x": (x0 + x1) / 2,
                    "y": -0.5 - d_model * 0.03,
                    # a band is 1/n_heads of a panel: 4 bands of "head k" overlapped
                    # in a 1024-px projector's half page: the number in its head's colour
                    "text": f"head {h + 1}" if n_heads <= 2 else str(h + 1),
                    "showarrow": False,
                    "font": {"color": "white", "size": FONT_SIZE - 3},
                    "xref": panel.x,
                    "yref": panel.y,
                }
            )
            if h:
                shapes.append(vertical_line(x0, {"color": "#333333", "width": 1}, panel))
        layout[panel.xaxis].update(
            title={"text": "column of W_Q"},  # short: two fit in half a page
            showgrid=False,
        )
        layout[panel.yaxis].update(autorange="reversed", showgrid=False)
    layout[panels[0].yaxis]["title"] = {"text": "input coordinate"}
    # The same rows on the right: numbered once, left (at 1024 px the right panel's
    # numbers ran into the left panel).
    layout[panels[1].yaxis]["showticklabels"] = columns == 1
    layout["annotations"] += notes
    layout.update(shapes=shapes, coloraxis=signed_axis(whole, title="weight"))
    rows = 2 // columns
    return figure(data, framed_layout(layout, rows * min(720, 260 + 6 * d_model), margin))
