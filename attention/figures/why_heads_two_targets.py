""" "Why several heads?": one head against two when a query needs two tokens at once."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import plotly.graph_objects as go

from attention.experiments.two_targets import ONE_HEAD_FLOOR, TwoTargetResult
from attention.figures.base.checks import check_shape
from attention.figures.base.grid import (
    figure,
    framed_layout,
    grid,
    horizontal_line,
    line_label,
)
from attention.figures.base.palette import (
    LAYOUT_STYLES,
    head_color,
)
from attention.figures.base.text import unique_labels
from attention.wording import percent

MAX_NAMED_TICKS = 24  # tokens named along each panel's axis (targets and query always)


def two_target_figure(
    tokens: Sequence[str], result: TwoTargetResult, columns: int = 2
) -> go.Figure:
    """The query's weights over the tokens: one head (left), two heads (right; below with
    `columns` = 1, on a phone); the two targets' columns shaded."""
    check_shape("result.one_head", result.one_head, (len(tokens),))
    check_shape("result.two_heads", result.two_heads, (2, len(tokens)))
    labels = unique_labels(list(tokens))
    query = labels[result.query]
    one, two = result.one_head_fetch, result.two_heads_fetch
    titles = [
        f"One head:<br>{percent(one[0], 1)} + {percent(one[1], 1)}",
        f"Two heads:<br>{percent(two[0], 1)} and {percent(two[1], 1)}",
    ]  # two lines each: the titles keep apart over the half panels of a phone
    panels, layout = grid(2, columns, titles, h_gap=0.06, v_gap=0.3)
    # The single head is another model, not head 1: it keeps the layouts' black.
    series = [(panels[0], LAYOUT_STYLES[0][0], result.one_head, "one head")]
    series += [
        (panels[1], head_color(h), result.two_heads[h], f"head {h + 1} of two") for h in range(2)
    ]
    data = [
        panel.place(
            {
                "type": "bar",
                "x": labels,
                "y": weights,
                "name": name,
                "marker": {"color": color},
                "customdata": [query] * len(labels),
                "hovertemplate": "query %{customdata} → key %{x}<br>weight %{y:.3f}"
                f"<extra>{name}</extra>",
            }
        )
        for panel, color, weights, name in series
    ]
    shapes = [
        {
            "type": "rect",
            "x0": target - 0.5,
            "x1": target + 0.5,
            "xref": panel.x,
            "y0": 0,
            "y1": 1,
            "yref": f"{panel.y} domain",
            "fillcolor": "#999999",
            "opacity": 0.18,
            "line": {"width": 0},
            "layer": "below",
        }
        for panel in panels
        for target in result.targets
    ]
    # Plotly skips category ticks it finds crowded, which could hide a target's name: the
    # targets and the query are always named, every token up to MAX_NAMED_TICKS of them.
    step = max(1, -(-len(labels) // MAX_NAMED_TICKS))
    named = sorted({*range(0, len(labels), step), *result.targets, result.query})
    ticks = [labels[i] for i in named]
    for panel in panels:
        layout[panel.xaxis].update(
            type="category",
            tickangle=-45,
            tickmode="array",
            tickvals=ticks,
            ticktext=ticks,
            title={"text": "key token (targets shaded)"},
        )
    layout[panels[0].yaxis].update(range=[0, 1.05], title={"text": "attention weight"})
    layout[panels[1].yaxis].update(matches="y", showticklabels=columns == 1)
    stacked = columns == 1
    legend = {"orientation": "h", "y": -0.25 if stacked else -0.45}
    layout.update(shapes=shapes, barmode="group", legend=legend)
    return figure(data, framed_layout(layout, 760 if stacked else 440))


def two_target_curves(result: TwoTargetResult) -> go.Figure:
    """The objective during the fit, with the floor one head can never go below."""
    check_shape("result.one_head_loss", result.one_head_loss, (None,))
    check_shape("result.two_heads_loss", result.two_heads_loss, np.shape(result.one_head_loss))
    steps = np.arange(1, len(result.one_head_loss) + 1)
    data = [
        {
            "type": "scatter",
            "x": steps,
            "y": loss,
            "name": name,
            "mode": "lines",
            "line": {"color": color, "dash": dash, "width": 3},
            "hovertemplate": f"{name}<br>step %{{x}}<br>loss %{{y:.4f}}<extra></extra>",
        }
        for loss, name, (color, dash) in (
            (result.one_head_loss, "one head", LAYOUT_STYLES[0]),
            (result.two_heads_loss, "two heads", LAYOUT_STYLES[1]),
        )
    ]
    # The first steps can start far above the floor; keep the floor and the end in view.
    top = max(3.0, 1.2 * max(result.one_head_loss[-1], result.two_heads_loss[-1]))
    layout = {
        "shapes": [horizontal_line(ONE_HEAD_FLOOR, {"dash": "dash", "color": "#444444"})],
        "annotations": [line_label(ONE_HEAD_FLOOR, "log 2: one head's floor")],
        "xaxis": {"title": {"text": "optimisation step"}},
        "yaxis": {"title": {"text": "−½ (log w_a + log w_b)"}, "range": [0, top]},
    }
    return figure(data, framed_layout(layout, 360, legend={"orientation": "h", "y": -0.3}))
