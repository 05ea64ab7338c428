"""Scatter traces of 2-D points shared by the point pictures (head spaces, the lecture):
labels kept whole at the edges, WebGL past MAX_SVG_POINTS, and the focus token's
weighted keys or values coloured by head."""

from __future__ import annotations

import numpy as np

from attention.figures.base.palette import FOCUS_COLOR, FONT_SIZE, head_color, with_alpha

MAX_SVG_POINTS = 2048  # a trace of more points is drawn with WebGL (12 heads × 512 tokens)


LABEL_ALL_UP_TO = 24  # more tokens than this: label only the focus and its top keys


def shown_labels(labels: list[str], keep: set[int]) -> list[str]:
    if len(labels) <= LABEL_ALL_UP_TO:
        return labels
    return [label if i in keep else "" for i, label in enumerate(labels)]


LABEL_CLEARANCE = 0.05  # share of the picture's span: closer points' labels would collide


def label_sides(xy: np.ndarray, default: str = "top center") -> list[str]:
    """Where each point's label goes: `default`, except in a pair of points closer than
    LABEL_CLEARANCE of the picture's span, where the upper one's label goes above it and
    the lower one's below, so two labels never sit on one another ("The" and "the")."""
    xy = np.asarray(xy, dtype=np.float64)
    sides = [default] * len(xy)
    if len(xy) < 2 or len(xy) > MAX_SVG_POINTS:
        return sides
    span = np.ptp(xy, axis=0)
    scaled = xy / np.where(span > 0, span, 1.0)
    gaps = np.linalg.norm(scaled[:, None] - scaled[None], axis=-1)
    for i, j in zip(*np.nonzero(np.triu(gaps < LABEL_CLEARANCE, k=1)), strict=True):
        upper, lower = (i, j) if xy[i, 1] >= xy[j, 1] else (j, i)
        sides[upper], sides[lower] = "top center", "bottom center"
    return sides


def points_trace(xy: np.ndarray, **props) -> dict:
    """A scatter trace of 2-D points; labels near an edge are drawn whole, not clipped.
    More than MAX_SVG_POINTS points are drawn with WebGL (no clipping option there)."""
    if len(xy) > MAX_SVG_POINTS:
        return {"type": "scattergl", "x": xy[:, 0], "y": xy[:, 1], **props}
    return {"type": "scatter", "x": xy[:, 0], "y": xy[:, 1], "cliponaxis": False, **props}


def per_head_colors(heads: list[int], n: int, alpha: float = 1.0) -> dict:
    """Per-point head number (for the hover) and head colour for `n` points per head."""
    colors = [with_alpha(head_color(h), alpha) for h in heads]
    return {
        "head": np.repeat(np.asarray(heads) + 1, n),
        "colors": [c for c in colors for _ in range(n)],
    }


def weighted_points_trace(
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
    per = per_head_colors(heads, n, alpha=alpha)
    return points_trace(
        coords,
        mode="markers+text",
        text=[t for k in range(len(heads)) for t in shown_labels(labels, named[k])],
        textposition=label_sides(coords, "bottom center"),
        textfont={"size": FONT_SIZE - 3},
        hovertext=labels * len(heads),
        customdata=np.column_stack(
            [np.round(np.ravel(weights).astype(np.float64), 4), per["head"]]
        ),
        # the head in the label itself: Plotly writes an <extra> name in the point's own
        # colour, too faint to read on a translucent point
        hovertemplate=f"{hover}: %{{customdata[0]:.3f}}<br>head %{{customdata[1]}}<extra></extra>",
        marker={**marker, "color": per["colors"]},
        name=name,
    )


def marked_point(
    xy: np.ndarray, symbol: str, size: int, color: str, hover: str, text: str | None = None
) -> dict:
    """One point drawn large with the focus outline (the query, or a head's output ★)."""
    return points_trace(
        np.asarray(xy)[None],
        mode="markers+text" if text else "markers",
        text=[text] if text else None,
        textposition="top center",
        marker={"symbol": symbol, "size": size, "color": color,
                "line": {"width": 2, "color": FOCUS_COLOR}},
        hovertemplate=f"{hover}<extra></extra>",
        showlegend=False,
    )  # fmt: skip
