"""Many line segments whose width and opacity carry a weight, drawn as a few traces.

Plotly gives a whole trace one width and one colour, so segments are grouped into a
handful of weight levels (one trace each, segments separated by None). That keeps a
64-token, 16-head picture at ~100 traces instead of 65,000.
"""

from __future__ import annotations

import numpy as np

from attention.figures.base.palette import with_alpha

LEVELS = 6


MIN_WEIGHT = 0.02  # segments lighter than this are not drawn


def weighted_segments(
    starts: np.ndarray,
    ends: np.ndarray,
    weights: np.ndarray,
    color: str,
    name: str,
    max_width: float = 9.0,
    legendgroup: str | None = None,
    showlegend: bool = False,
) -> list[dict]:
    """Traces for segments starts[i] → ends[i] (arrays (m, 2)) with weights in [0, 1]:
    heavier segments are wider and more opaque. Hover shows each segment's weight."""
    starts, ends = np.asarray(starts, float), np.asarray(ends, float)
    weights = np.asarray(weights, float)
    level = np.ceil(np.clip(weights, 0, 1) * LEVELS).astype(int)
    traces = []
    for lvl in range(1, LEVELS + 1):
        pick = np.flatnonzero((level == lvl) & (weights >= MIN_WEIGHT))
        if pick.size == 0:
            continue
        xs = np.column_stack([starts[pick, 0], ends[pick, 0], np.full(pick.size, np.nan)])
        ys = np.column_stack([starts[pick, 1], ends[pick, 1], np.full(pick.size, np.nan)])
        share = lvl / LEVELS
        traces.append(
            {
                "type": "scatter",
                "x": xs.ravel(),
                "y": ys.ravel(),
                "mode": "lines",
                "line": {"color": with_alpha(color, 0.2 + 0.8 * share), "width": max_width * share},
                "hoverinfo": "skip",
                "name": name,
                "legendgroup": legendgroup or name,
                "showlegend": showlegend and not traces,
            }
        )
    return traces
