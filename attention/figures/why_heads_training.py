""" "Why several heads?": the small model trained in the app: training losses, every
seed's accuracy, and each trained head's weights on one example."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
import plotly.graph_objects as go

from attention.experiments.training.summary import SMOOTHING
from attention.experiments.training.train import Comparison
from attention.figures.base.checks import check_shape
from attention.figures.base.grid import (
    figure,
    framed_layout,
    grid,
    note_above,
    vertical_line,
)
from attention.figures.base.palette import (
    LAYOUT_STYLES,
    WEIGHT_AXIS,
    head_color,
)
from attention.figures.base.text import unique_labels
from attention.figures.base.theme import MUTED


def loss_curves(curves: Mapping[str, np.ndarray], steps: int) -> go.Figure:
    """Training loss per variant (label → losses so far): raw per-batch loss faint, its
    running mean over SMOOTHING steps bold; the x axis spans all `steps`."""
    for label, losses in curves.items():
        check_shape(f"losses of {label}", losses, (None,))
    data = []
    for (label, losses), (color, dash) in zip(curves.items(), LAYOUT_STYLES, strict=False):
        x = np.arange(1, len(losses) + 1)
        data.append(
            {
                "type": "scatter",
                "x": x,
                "y": np.round(losses, 4),
                "mode": "lines",
                "line": {"color": color, "width": 1},
                "opacity": 0.25,
                "showlegend": False,
                "hoverinfo": "skip",
            }
        )
        data.append(
            {
                "type": "scatter",
                "x": x,
                "y": np.round(_running_mean(losses, SMOOTHING), 4),
                "mode": "lines",
                "name": label,
                "line": {"color": color, "dash": dash, "width": 3},
                "hovertemplate": f"{label}<br>step %{{x}}<br>loss %{{y:.3f}}<extra></extra>",
            }
        )
    layout = {
        "xaxis": {"title": {"text": "training step"}, "range": [0, steps]},
        "yaxis": {
            "title": {"text": f"loss (nats, mean of {SMOOTHING} steps)"},
            "rangemode": "tozero",
        },
    }
    return figure(data, framed_layout(layout, 420, legend={"orientation": "h", "y": -0.25}))


def _running_mean(values: np.ndarray, window: int) -> np.ndarray:
    """Mean of the last `window` values at each step (fewer at the start)."""
    sums = np.cumsum(np.insert(np.asarray(values, dtype=np.float64), 0, 0.0))
    counts = np.minimum(np.arange(1, len(values) + 1), window)
    ends = np.arange(1, len(values) + 1)
    return (sums[ends] - sums[ends - counts]) / counts


def seed_spread(
    summary: Mapping[str, Mapping[str, np.ndarray]],
    labels: Mapping[str, str],
    seeds: Sequence[int],
    n_symbols: int,
) -> go.Figure:
    """Every seed's final accuracy as a dot per variant, so the spread is visible; with
    the chance level 1/n_symbols² and 1/n_symbols (one answer known, one guessed)."""
    for key, values in summary.items():
        check_shape(f"accuracy of {key}", values["accuracy"], (len(seeds),))
    data = [
        {
            "type": "scatter",
            "x": values["accuracy"] * 100,
            "y": [labels[key]] * len(seeds),
            "mode": "markers",
            "name": labels[key],
            "marker": {
                "color": color,
                "size": 14,
                "opacity": 0.75,
                "line": {"width": 1, "color": "white"},
            },
            "customdata": list(seeds),
            "hovertemplate": "%{y}<br>seed %{customdata}: %{x:.1f} %<extra></extra>",
            "showlegend": False,
        }
        for (key, values), (color, _) in zip(summary.items(), LAYOUT_STYLES, strict=False)
    ]
    chance = {"chance": 100 / n_symbols**2, "one answer right": 100 / n_symbols}
    marks = list(zip(chance.items(), ("dot", "dash"), strict=True))
    layout = {
        "shapes": [vertical_line(x, {"color": "#888888", "dash": dash}) for (_, x), dash in marks],
        "annotations": [  # one label per line, stacked so that close lines never collide
            note_above(
                x, f"{label}: {x:.1f} %", xanchor="left", yshift=18 * row, font={"color": MUTED}
            )
            for row, ((label, x), _) in enumerate(marks)
        ],
        "xaxis": {
            "title": {"text": "accuracy on held-out sequences (%), one dot per seed"},
            "range": [-2, 102],
        },
        "yaxis": {"type": "category", "autorange": "reversed"},
    }
    return figure(data, framed_layout(layout, 340, margin={"t": 58}))


def head_maps(comparison: Comparison) -> go.Figure:
    """Each trained head's weights for the query token '?' on one example: one block of
    rows per variant, one row per head (its colour on the left), one column per token."""
    keys = list(comparison.results)
    maps = {key: comparison.example_weights(key) for key in keys}
    labels = unique_labels(comparison.example_tokens)
    for key, weights in maps.items():
        check_shape(f"example weights of {key}", weights, (None, len(labels)))
    panels, layout = grid(
        len(keys),
        1,
        [comparison.results[key].variant.label for key in keys],
        v_gap=0.09,
        row_heights=[maps[key].shape[0] + 0.6 for key in keys],
    )
    data = []
    for panel, key in zip(panels, keys, strict=True):
        names = [f"head {h + 1}" for h in range(len(maps[key]))]
        data.append(
            panel.place(
                {
                    "type": "heatmap",
                    "z": np.round(maps[key], 4),
                    "x": labels,
                    "y": names,
                    "coloraxis": "coloraxis",
                    "xgap": 1,
                    "ygap": 1,
                    "hovertemplate": "%{y}: query ? → %{x}<br>weight %{z:.3f}<extra></extra>",
                }
            )
        )
        # Every axis categorical: tokens such as "5" must not turn an axis numeric.
        layout[panel.yaxis].update(autorange="reversed", showticklabels=False, type="category")
        layout[panel.xaxis]["type"] = "category"
        if not panel.bottom:  # the x axes share the bottom one's token labels
            layout[panel.xaxis].update(matches=panels[-1].x, showticklabels=False)
        layout["annotations"] += [
            {
                "x": -0.01,
                "xref": f"{panel.x} domain",
                "xanchor": "right",
                "y": name,
                "yref": panel.y,
                "text": f"■ {name} ",
                "showarrow": False,
                "font": {"color": head_color(h)},
            }
            for h, name in enumerate(names)
        ]
    layout[panels[-1].xaxis]["title"] = {"text": "key token (A:s and B:s are the targets)"}
    layout["coloraxis"] = WEIGHT_AXIS
    height = 130 + 45 * sum(len(m) + 1 for m in maps.values())
    return figure(data, framed_layout(layout, height, margin={"l": 110}))
