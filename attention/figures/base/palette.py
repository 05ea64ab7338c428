"""One colour per head, the same on every page, and the shared colour scales.

Head colours are titles and labels as well as marks, so every one reads as text on the
charts' white background (WCAG contrast ≥ 4.5:1), and the set stays apart for every
colour vision: the smallest CIEDE2000 difference between two heads is ≥ 8 under normal
vision and simulated deuteranopia, protanopia and tritanopia (≥ 12 among the first four,
the default count; tests/pages/test_colours.py measures both). Heads 1–4 keep the hues of Okabe
& Ito's set (vermillion, blue, green, reddish purple), darkened to text contrast; heads
5–16 were chosen by a max-min search over that contrast limit, each next head the one
farthest from those before it, so fewer heads are further apart. Head numbers on marks
and the Q/K/V symbols carry the same meaning without colour. Attention weights
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
    "#C15500",  # vermillion
    "#0072B2",  # blue
    "#005A2D",  # green
    "#A51E78",  # reddish purple
    "#966969",  # rosy brown
    "#1E00E1",  # ultramarine
    "#4B2D4B",  # aubergine
    "#780000",  # maroon
    "#A5002D",  # crimson
    "#874B5A",  # mauve
    "#690069",  # plum
    "#3C69FF",  # royal blue
    "#1E873C",  # leaf green
    "#D200A5",  # magenta
    "#2D3CFF",  # blue violet
    "#5A00A5",  # indigo
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


def scale_color(scale: list[list], share: float) -> str:
    """The colour at `share` (0..1) of a [position, '#RRGGBB'] scale, interpolated in sRGB
    channels between its stops, as Plotly colours a heatmap's cell."""
    positions = [float(position) for position, _ in scale]
    channels = np.array([_channels(color) for _, color in scale])
    rgb = [np.interp(min(max(share, 0.0), 1.0), positions, channels[:, k]) for k in range(3)]
    return "#" + "".join(f"{round(c):02X}" for c in rgb)


def text_on(color: str) -> str:
    """Black or white, whichever has the higher WCAG contrast with the '#RRGGBB' `color`:
    a number on a cell of any colour then reads at ≥ 4.58:1. Plotly's own pick, white or
    its #444, falls to 3.1:1 on mid-tone cells."""
    luminance = _luminance(color)
    on_white, on_black = 1.05 / (luminance + 0.05), (luminance + 0.05) / 0.05
    return "#FFFFFF" if on_white >= on_black else "#000000"


def _channels(color: str) -> tuple[int, ...]:
    """'#RRGGBB' → its channels, 0..255."""
    return tuple(int(color[i : i + 2], 16) for i in (1, 3, 5))


def _luminance(color: str) -> float:
    """WCAG 2.x relative luminance of a '#RRGGBB' colour."""
    srgb = np.array(_channels(color)) / 255.0
    linear = np.where(srgb <= 0.04045, srgb / 12.92, ((srgb + 0.055) / 1.055) ** 2.4)
    return float(linear @ np.array([0.2126, 0.7152, 0.0722]))


def scale_pairs(name: str) -> list[list]:
    """A named Plotly colour scale as explicit [position, colour] pairs (what Plotly's
    validation would turn the name into)."""
    return [list(pair) for pair in get_colorscale(name)]
