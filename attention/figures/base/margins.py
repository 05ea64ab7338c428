"""Room for tick labels, axis titles and colour bars reserved in a figure's margins
before Plotly draws it, from the labels' own lengths.

Plotly's automargin draws a chart, measures what sticks out of the plot, widens the
margins and draws the chart again — up to five times for a map with square cells, whose
axes move whenever the margins do. Streamlit mounts every changed chart anew, so every
chart of every move paid those extra draws. Margins at least as wide as what Plotly
measures leave automargin nothing to do. The estimate errs wide (each character a little
wider than in Source Sans, the page's font); where it still falls short, automargin
widens the margin as before, so no label is ever cut — it only costs the draw this
module saves.
"""

from __future__ import annotations

import math
import re

from attention.figures.base.theme import is_axis, layout_name

# Character widths in font sizes, a little over Source Sans' (lowercase about 0.48 em).
NARROW, WIDE, CAPITAL, OTHER, NON_LATIN = 0.32, 0.88, 0.66, 0.52, 1.0
NARROW_CHARS, WIDE_CHARS = set("fijlrtI.,:;'!|()[] "), set("mwMW")
LINE_EM = 1.45  # a line of text, in font sizes (line height and the gap Plotly leaves)
TICK_LEN = 5  # Plotly's default tick length, px
# Plotly pads what it pushes into a margin by min(12, smallest margin); 4 px more for
# the estimate's rounding (a margin 1–2 px short costs a whole draw).
PUSH_PAD = 16
LEGEND_SYMBOL_PX = 40  # a legend entry's symbol and the gap after it
SHORT_LEGEND_PX = 120  # legends up to this wide ("head 12") get their room reserved
# A legend or colour bar placed at x = 1.02 of the plot's width sits that share of the
# width past the margin's edge; the server does not know the width: it takes a wide one
# (a wider plot leaves automargin one more draw; a narrower one loses a few px).
WIDE_PLOT_PX = 600
DEFAULT_MARGIN = {"l": 80, "r": 80, "t": 100, "b": 80}  # Plotly's
_TAG = re.compile(r"<[^>]*>")


def reserved(data: list[dict], layout: dict) -> dict:
    """`layout` with each margin at least as wide as what its edge's axes (tick labels,
    ticks and title), the colour bars (upright at the right, or lying along the bottom),
    a short legend on the right and a slide caption will take; margins already wider stay
    as they are."""
    need = {side: 0.0 for side in DEFAULT_MARGIN}
    for name, axis in layout.items():
        side = _edge(name, axis, layout) if is_axis(name) and axis.get("visible", True) else None
        if side:
            labels = _label_extent(name, axis, data)
            need[side] = max(need[side], _axis_depth(name[0], axis, labels))
        if side and name[0] == "x":  # the end labels hang out past the axis's ends
            domain = axis.get("domain", [0, 1])
            overhang = _overhang(labels)
            for end, at in (("l", domain[0] <= 0.001), ("r", domain[1] >= 0.999)):
                need[end] = max(need[end], overhang if at else 0.0)
    scales = [(axis, "c") for name, axis in layout.items() if name.startswith("coloraxis")]
    scales += [(t, "z") for t in data if t.get("type") == "heatmap" and "coloraxis" not in t]
    shown = [owner.get("colorbar", {}) for owner, _ in scales if owner.get("showscale", True)]
    for owner, prefix in scales:
        if owner.get("showscale", True):
            need["r"] = max(need["r"], _colorbar_width(owner, prefix))
    need["r"] = max(need["r"], _legend_width(data, layout))
    need["b"] += _caption_height(layout) + max(map(bottom_bar_height, shown), default=0.0)
    margin = dict(layout.get("margin", {}))
    for side, px in need.items():
        if px:
            own = margin.get(side, DEFAULT_MARGIN[side])
            margin[side] = max(own, math.ceil(px + PUSH_PAD))
    return {**layout, "margin": margin}


def text_width(text: str, size: float) -> float:
    """The estimated width in px of the longest line of `text` (markup not counted)."""
    lines = _TAG.sub("", str(text).replace("<br>", "\n")).split("\n")
    return max(sum(_char_em(c) for c in line) for line in lines) * size


def _char_em(char: str) -> float:
    if char in NARROW_CHARS:
        return NARROW
    if char in WIDE_CHARS:
        return WIDE
    if char.isupper():
        return CAPITAL
    return OTHER if ord(char) < 0x2E80 else NON_LATIN  # CJK and the like: a full em


def _edge(name: str, axis: dict, layout: dict) -> str | None:
    """The margin ("l", "r", "t" or "b") the axis's labels stick into, if the axis lies
    on the plot area's outer edge; None for an axis inside the paper (its labels push
    less, and automargin is left to judge)."""
    letter, other = name[0], "y" if name[0] == "x" else "x"
    main = layout.get(layout_name(axis["overlaying"]), axis) if "overlaying" in axis else axis
    low, high = ("bottom", "top") if letter == "x" else ("left", "right")
    side = axis.get("side", main.get("side", low))
    if main.get("anchor") == "free":
        at = main.get("position", 0)
    else:
        anchor = layout.get(layout_name(main.get("anchor", other)), {})
        domain = anchor.get("domain", [0, 1])
        at = domain[0] if side == low else domain[1]
    if (side == low and at > 0.001) or (side == high and at < 0.999):
        return None
    return {"bottom": "b", "top": "t", "left": "l", "right": "r"}[side]


def _label_extent(name: str, axis: dict, data: list[dict]) -> tuple[float, float, float]:
    """The axis's widest tick label, its tallest (px) and their angle (radians); all
    zero when the axis shows no tick labels."""
    if not axis.get("showticklabels", True):
        return 0.0, 0.0, 0.0
    labels = _tick_labels(name, axis, data)
    size = axis.get("tickfont", {}).get("size", 12)
    width = max((text_width(label, size) for label in labels), default=0.0)
    height = LINE_EM * size * max((str(s).count("<br>") + 1 for s in labels), default=1)
    return width, height, math.radians(abs(axis.get("tickangle", 0) or 0))


def _axis_depth(letter: str, axis: dict, labels: tuple[float, float, float]) -> float:
    """How far the axis's tick labels (their `_label_extent`), ticks and title reach out
    from the plot, px."""
    width, height, angle = labels
    depth = TICK_LEN if "tickcolor" in axis else 0.0  # the theme colours shown ticks only
    if letter == "x":
        depth += width * math.sin(angle) + height * math.cos(angle)
    else:
        depth += width * math.cos(angle) + height * math.sin(angle)
    title = axis.get("title", {})
    if title.get("text"):
        size = title.get("font", {}).get("size", 14)
        lines = title["text"].count("<br>") + 1
        depth += title.get("standoff", 0) + LINE_EM * size * lines
    return depth


def _overhang(labels: tuple[float, float, float]) -> float:
    """How far an x axis's first and last tick labels reach past its ends: half a label's
    width when upright, half a line's height when turned to the vertical."""
    width, height, angle = labels
    return 0.5 * max(width * math.cos(angle), height * math.sin(angle))


def _caption_height(layout: dict) -> float:
    """The band a title written along the container's bottom (a slide caption) keeps
    below the plot, on top of what the axes there push."""
    title = layout.get("title", {})
    if not (title.get("automargin") and title.get("yref") == "container"):
        return 0.0
    if title.get("y", 1) >= 0.5:
        return 0.0
    lines = str(title.get("text", "")).count("<br>") + 1
    above_edge = title.get("y", 0) * layout.get("height", 450)
    return lines * LINE_EM * title.get("font", {}).get("size", 12) + above_edge + 4


def _legend_width(data: list[dict], layout: dict) -> float:
    """The width of an upright legend at the plot's right (Plotly's default place), if
    Plotly shows one and its entries are short: its widest entry or its title. A legend
    of long entries is left to automargin: the estimate's error grows with the text and
    squeezed narrow plots more than the draw it saves was worth."""
    legend = layout.get("legend", {})
    x = legend.get("x", 1.02)
    if legend.get("orientation", "v") != "v" or x < 1:
        return 0.0
    names = [t.get("name", "") for t in data if t.get("showlegend", True) is not False]
    if not layout.get("showlegend", len(names) > 1):
        return 0.0
    size = legend.get("font", {}).get("size", 12)
    width = max((text_width(name, size) for name in names), default=0.0)
    title = legend.get("title", {})
    title_width = text_width(title.get("text", ""), title.get("font", {}).get("size", size))
    widest = max(LEGEND_SYMBOL_PX + width, title_width)
    return widest + (x - 1) * WIDE_PLOT_PX if widest <= SHORT_LEGEND_PX else 0.0


def _tick_labels(name: str, axis: dict, data: list[dict]) -> list[str]:
    """The labels Plotly will write along the axis: its own tick texts, else the
    categories of the traces on it, else numbers as wide as the data's extremes."""
    if "ticktext" in axis:
        return [str(label) for label in axis["ticktext"]]
    if "tickvals" in axis:
        return [_number(value) for value in axis["tickvals"]]
    letter, axis_id = name[0], name[0] + name[5:]
    values = [
        value
        for trace in data
        if trace.get(letter + "axis", letter) == axis_id
        for value in _flat(trace.get(letter, []))
    ]
    if axis.get("type") == "category" or any(isinstance(v, str) for v in values):
        return [str(value) for value in values]
    if axis.get("type") == "log":
        return ["10000"]  # 10⁵-style labels, and room for their exponents
    ends = axis.get("range") or [v for v in values if isinstance(v, int | float)] or [0]
    return [_number(min(ends)), _number(max(ends))]


def _number(value: object) -> str:
    """A number as wide as Plotly's tick label for it (two digits after the point)."""
    return f"{value:.2f}".rstrip("0").rstrip(".") if isinstance(value, float) else str(value)


def bottom_bar_height(bar: dict) -> float:
    """The band a horizontal colour bar along the container's bottom keeps below what
    the axes there push: padding, bar, outline, a line of tick labels and its title's
    line when the title sits on top."""
    if bar.get("orientation", "v") != "h" or bar.get("yref") != "container":
        return 0.0
    title = bar.get("title", {})
    title_px = LINE_EM * title.get("font", {}).get("size", 14) if title.get("side") == "top" else 0
    return (
        bar.get("ypad", 10)
        + bar.get("thickness", 30)
        + 2 * bar.get("outlinewidth", 1)
        + LINE_EM * bar.get("tickfont", {}).get("size", 12)
        + title_px
    )


def _flat(values: object) -> list:
    if isinstance(values, list | tuple):
        return [v for item in values for v in (_flat(item) if isinstance(item, list) else [item])]
    return []


def _colorbar_width(owner: dict, prefix: str) -> float:
    """The width a vertical colour bar at the right takes: padding, bar, outline, labels.
    `owner` is a colour axis (its range in cmin/cmax) or a heatmap (zmin/zmax)."""
    bar = owner.get("colorbar", {})
    x = bar.get("x", 1.02)
    if bar.get("orientation", "v") != "v" or x < 1:
        return 0.0
    size = bar.get("tickfont", {}).get("size", 12)
    labels = bar.get("ticktext") or [
        _number(owner[prefix + end]) for end in ("min", "max") if prefix + end in owner
    ]
    labels = labels or ["0.5"]
    width = max(text_width(label, size) for label in labels)
    title = bar.get("title", {})
    if title.get("side") == "right" and title.get("text"):
        width += LINE_EM * title.get("font", {}).get("size", 14)
    elif title.get("text"):  # on top: as wide as its text
        width = max(width, text_width(title["text"], title.get("font", {}).get("size", 14)))
    return (
        (x - 1) * WIDE_PLOT_PX
        + bar.get("xpad", 10)
        + bar.get("thickness", 30)
        + 2 * bar.get("outlinewidth", 1)  # drawn around the bar, both sides
        + bar.get("ticklen", 0)
        + width
    )
