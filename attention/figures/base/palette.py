"""One colour per head, the same on every page, and the shared colour scales.

Heads 1–6 use Okabe & Ito's colour-blind-safe set (without its black and yellow, which
vanish on a projector); heads 7–16 continue with Paul Tol's muted set. Attention weights
use one sequential scale (white → dark blue) everywhere, so 0–1 reads the same on every
chart. Signed values (head outputs, activations, entries of W_Q) use one diverging scale,
ColorBrewer's RdBu in its natural order: negative = red, zero = near-white, positive =
blue, so "more" is blue as on the weight scale; its colour axis is always symmetric
about 0 (`signed_axis`), so white means exactly zero.
"""

from __future__ import annotations

import numpy as np
from plotly.colors import get_colorscale

HEAD_COLORS = (
    "#E69F00",  # orange
    "#56B4E9",  # sky blue
    "#009E73",  # bluish green
    "#0072B2",  # blue
    "#D55E00",  # vermillion
    "#CC79A7",  # reddish purple
    "#332288",  # indigo
    "#DDCC77",  # sand
    "#117733",  # green
    "#882255",  # wine
    "#44AA99",  # teal
    "#999933",  # olive
    "#AA4499",  # purple
    "#CC6677",  # rose
    "#88CCEE",  # cyan
    "#555555",  # dark grey
)
QUERY_SYMBOL, KEY_SYMBOL, VALUE_SYMBOL, OUTPUT_SYMBOL = "circle", "diamond-open", "square", "star"
TOKEN_COLOR = "#333333"  # points of the original embedding space (no head yet)
FOCUS_COLOR = "#000000"
BLOCKED_COLOR = "#BDBDBD"  # cells a mask forbids
WEIGHT_SCALE = [[0.0, "#FFFFFF"], [0.15, "#DCEAF7"], [0.5, "#6BAED6"], [1.0, "#08306B"]]
# Layouts and variants compared on "Why several heads?" are not heads: Paul Tol's
# high-contrast set plus black, each with its own dash so the lines stay apart in grey
# print and for every colour vision.
LAYOUT_STYLES = (
    ("#000000", "solid"),
    ("#004488", "dash"),
    ("#BB5566", "dot"),
    ("#DDAA33", "dashdot"),
)
ROLE_SCALE = "Oranges"  # sequential, distinct from the blue weight scale
FONT_SIZE = 16  # base font of every figure: readable when projected
# The one colour axis every attention map shares: weights from 0 to 1.
WEIGHT_AXIS = {
    "colorscale": WEIGHT_SCALE,
    "cmin": 0.0,
    "cmax": 1.0,
    "colorbar": {"title": {"text": "weight"}, "thickness": 14},
}
DIVERGING_SCALE = [  # ColorBrewer RdBu, colour-blind-safe: red < 0 < blue
    [0.0, "#B2182B"],
    [0.25, "#F4A582"],
    [0.5, "#F7F7F7"],
    [0.75, "#92C5DE"],
    [1.0, "#2166AC"],
]


def head_color(head: int) -> str:
    """Colour of head `head` (0-based); cycles after 16 heads."""
    return HEAD_COLORS[head % len(HEAD_COLORS)]


def with_alpha(color: str, alpha: float) -> str:
    """'#RRGGBB' → 'rgba(r,g,b,alpha)' for lines whose opacity carries a weight."""
    r, g, b = (int(color[i : i + 2], 16) for i in (1, 3, 5))
    return f"rgba({r},{g},{b},{alpha:.3f})"


def signed_axis(*arrays: np.ndarray, title: str, on_trace: bool = False) -> dict:
    """The colour axis for signed values: the diverging scale from -m to +m, m the
    largest |value| in `arrays` (1 when all are zero), so zero is always white. As a
    layout coloraxis (cmin, cmax), or with `on_trace` as a heatmap's own (zmin, zmax)."""
    limit = max(float(np.abs(a).max()) for a in arrays)
    limit = limit if limit > 0 else 1.0
    low, high = ("zmin", "zmax") if on_trace else ("cmin", "cmax")
    return {
        "colorscale": DIVERGING_SCALE,
        low: -limit,
        high: limit,
        "colorbar": {"title": {"text": title}, "thickness": 14},
    }


def scale_pairs(name: str) -> list[list]:
    """A named Plotly colour scale as explicit [position, colour] pairs (what Plotly's
    validation would turn the name into)."""
    return [list(pair) for pair in get_colorscale(name)]
