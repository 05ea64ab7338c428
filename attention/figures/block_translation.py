"""The block view's translation example: one cross-attention head's decoder queries and
encoder keys in one 2-D picture."""

from __future__ import annotations

import numpy as np
import plotly.graph_objects as go

from attention.figures.base.checks import check_shape
from attention.figures.base.grid import (
    MARGIN,
    figure,
)
from attention.figures.base.palette import (
    FONT_SIZE,
    KEY_SYMBOL,
    QUERY_SYMBOL,
    head_color,
)
from attention.figures.base.segments import weighted_segments
from attention.figures.base.text import safe_label
from attention.geometry.score_space import JointLayout


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
    check_shape("weights", weights, (len(query_tokens), len(key_tokens)))
    check_shape("layout.queries", layout.queries, (len(query_tokens), 2))
    check_shape("layout.keys", layout.keys, (len(key_tokens), 2))
    color = head_color(head)
    q_index, k_index = np.indices(weights.shape).reshape(2, -1)
    data = weighted_segments(
        layout.queries[q_index], layout.keys[k_index], weights.ravel(), color, "weight"
    )
    # Queries named on the left, keys on the right: a query and the key it matches often
    # coincide, one a little above the other, where labels above and below would collide.
    for coords, tokens, symbol, side, place in (
        (layout.queries, query_tokens, QUERY_SYMBOL, "query (decoder)", "middle left"),
        (layout.keys, key_tokens, KEY_SYMBOL, "key (encoder)", "middle right"),
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
