"""The Lesson's translation step: the three attentions of the hand-built model side by
side, each map one head with its own tokens: the encoder's self-attention, the
decoder's causal self-attention (blocked cells grey) and the cross-attention."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import plotly.graph_objects as go

from attention.figures.base.checks import check_shape
from attention.figures.base.grid import MARGIN, figure
from attention.figures.base.palette import BLOCKED_COLOR, FONT_SIZE, WEIGHT_SCALE
from attention.figures.base.text import safe_label

GAP = 0.15  # share of the width between two maps


@dataclass(frozen=True)
class MapPanel:
    """One head's map: (n_q, n_k) weights, its tokens, and where a mask blocks it."""

    title: str
    weights: np.ndarray
    query_tokens: list[str]
    key_tokens: list[str]
    allowed: np.ndarray | None = None  # (n_q, n_k), True = may attend


ROW_GAP_PX = 100  # between maps one above the other: the keys above, the title below


def three_attentions_figure(
    panels: list[MapPanel], height: int = 330, one_per_row: bool = False
) -> go.Figure:
    """The panels in one row, one weight colour scale from 0 to 1, queries down the side
    of each map and keys under it; a blocked cell is grey, not white (weight 0 allowed).
    `one_per_row` puts them one above the other, each row `height` high (a phone)."""
    columns = 1 if one_per_row else len(panels)
    rows = len(panels) // columns
    width = (1 - GAP * (columns - 1)) / columns
    margin = {**MARGIN, "t": 44, "b": 70, "l": 60}
    total = height + (rows - 1) * (height - margin["t"] - margin["b"] + ROW_GAP_PX)
    row_gap = ROW_GAP_PX / (total - margin["t"] - margin["b"])
    tall = (1 - row_gap * (rows - 1)) / rows
    data, annotations, shapes = [], [], []
    layout: dict = {"height": total, "margin": margin}
    for i, panel in enumerate(panels):
        row, col = divmod(i, columns)
        top = 1.0 - row * (tall + row_gap)
        n_q, n_k = len(panel.query_tokens), len(panel.key_tokens)
        check_shape("weights", panel.weights, (n_q, n_k))
        z = np.asarray(panel.weights, dtype=np.float64)
        if panel.allowed is not None:
            check_shape("allowed", panel.allowed, (n_q, n_k))
            z = np.where(panel.allowed, z, np.nan)
        suffix = "" if i == 0 else str(i + 1)
        start = col * (width + GAP)
        data.append(
            {
                "type": "heatmap",
                "z": z,
                "xaxis": f"x{suffix}",
                "yaxis": f"y{suffix}",
                "colorscale": WEIGHT_SCALE,
                "zmin": 0.0,
                "zmax": 1.0,
                "showscale": False,
                "xgap": 1,
                "ygap": 1,
                "hovertemplate": "query %{y}, key %{x}: %{z:.2f}<extra></extra>",
            }
        )
        keys = [safe_label(t) for t in panel.key_tokens]
        queries = [safe_label(t) for t in panel.query_tokens]
        layout[f"xaxis{suffix}"] = {
            "domain": [start, start + width],
            "tickvals": list(range(n_k)),
            "ticktext": keys,
            "tickangle": -45,
            "anchor": f"y{suffix}",
        }
        layout[f"yaxis{suffix}"] = {
            "tickvals": list(range(n_q)),
            "ticktext": queries,
            "autorange": "reversed",
            "anchor": f"x{suffix}",
            **({"domain": [top - tall, top]} if one_per_row else {}),
        }
        annotations.append(
            {
                "text": safe_label(panel.title, 40),
                "x": start + width / 2,
                "y": top,
                "xref": "paper",
                "yref": "paper",
                "yanchor": "bottom",
                "showarrow": False,
                "font": {"size": FONT_SIZE},
            }
        )
        if panel.allowed is not None and not np.all(panel.allowed):
            shapes.append(
                {
                    "type": "rect",
                    "xref": f"x{suffix} domain",
                    "yref": f"y{suffix} domain",
                    "x0": 0,
                    "x1": 1,
                    "y0": 0,
                    "y1": 1,
                    "fillcolor": BLOCKED_COLOR,
                    "line": {"width": 0},
                    "layer": "below",
                }
            )
    layout.update(annotations=annotations, shapes=shapes, plot_bgcolor="rgba(0,0,0,0)")
    return figure(data, layout)
