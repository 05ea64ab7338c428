"""The charts' look, written into each figure's own layout rather than left to Streamlit.

Streamlit's "streamlit" chart theme sends the look as a Plotly template, rebuilt in the
browser every time it themes a figure. Plotly.react compares templates by identity, so
the react Streamlit makes right after drawing a new chart (to store its width) drew the
whole chart a second time, on every chart of every move; the template's axis automargin
added a third draw to most charts. The pages therefore show charts with `theme=None`,
and `themed` puts the same look — Streamlit's theme resolved for this app's light theme
(.streamlit/config.toml; tests/unit/test_theme.py checks they agree) — into the layout, under
the figure's own values, with no template at all.
"""

from __future__ import annotations

import copy

FONT_FAMILY = '"Source Sans", sans-serif'  # Streamlit's body font, loaded by the page
TEXT_COLOR = "#1A1A1A"  # theme.textColor
BACKGROUND = "#FFFFFF"  # theme.backgroundColor
# Ticks, axis and colour-bar titles, notes and hover text. Streamlit's light theme draws
# them in #808495, 3.7:1 on white: under WCAG AA's 4.5:1 for text. The same blue-grey,
# darker: 6.1:1 on the charts' white (default, presenter and phone alike), 5.8:1 on
# Plotly's fill of an active button, 5.6:1 on the page's secondary background #F3F6FA
# (tests/test_chart_contrast.py measures every text of every chart the pages draw).
MUTED = "#5E6270"
LINES = "#e6eaf1"  # grid, zero lines and tick marks
BASE_PX = 17  # theme.baseFontSize
SMALL_PX, MEDIUM_PX = 0.75 * BASE_PX, 0.875 * BASE_PX

LAYOUT = {
    "font": {"color": MUTED, "family": FONT_FAMILY, "size": SMALL_PX, "weight": 400},
    "title": {
        "font": {"family": FONT_FAMILY, "size": BASE_PX, "color": TEXT_COLOR, "weight": 700},
        "pad": {"l": 0.25 * BASE_PX},
        "xanchor": "left",
        "x": 0,
    },
    "legend": {
        "title": {"font": {"size": SMALL_PX, "color": MUTED}, "side": "top"},
        "valign": "top",
        "bordercolor": "rgba(0, 0, 0, 0)",
        "borderwidth": 0,
        "font": {"size": SMALL_PX, "color": TEXT_COLOR},
    },
    "paper_bgcolor": BACKGROUND,
    "plot_bgcolor": BACKGROUND,
    "margin": {"pad": 0.5 * BASE_PX, "r": 0, "l": 0},
    "hoverlabel": {
        "bgcolor": BACKGROUND,
        "bordercolor": "rgba(26, 26, 26, 0.2)",
        "font": {"color": MUTED, "family": FONT_FAMILY, "size": SMALL_PX},
    },
    "colorway": [
        *("#0068c9", "#83c9ff", "#ff2b2b", "#ffabab", "#29b09d"),
        *("#7defa1", "#ff8700", "#ffd16a", "#6d3fc0", "#d5dae5"),
    ],
}
_TICK_FONT = {"tickfont": {"color": MUTED, "size": SMALL_PX}}
AXES = {
    "x": {
        **_TICK_FONT,
        "showgrid": False,
        "zeroline": False,
        "title": {"font": {"color": MUTED, "size": MEDIUM_PX}, "standoff": 1.25 * BASE_PX},
        "automargin": True,
    },
    "y": {
        **_TICK_FONT,
        "ticklabelposition": "outside",
        "title": {"font": {"color": MUTED, "size": MEDIUM_PX}, "standoff": 1.5 * BASE_PX},
        "automargin": True,
    },
}
COLORBAR = {  # Streamlit's, but at the plot's edge (x = 1, not 1.02: see margins.py)
    "x": 1,
    "thickness": 16,
    "xpad": 1.5 * BASE_PX,
    "ticklabelposition": "outside",
    "outlinecolor": "rgba(0, 0, 0, 0)",
    "outlinewidth": 8,
    "len": 0.75,
    "y": 0.5745,
    "title": {"font": {"color": MUTED, "size": MEDIUM_PX}},
    "tickfont": {"color": MUTED, "size": SMALL_PX},
}


def themed(data: list[dict], layout: dict) -> dict:
    """`layout` with the app's chart look filled in wherever the figure set nothing:
    every axis the layout names or a trace draws on, and the colour axes' bars. Applying
    it twice changes nothing."""
    out = _under(LAYOUT, layout)
    traces_on = {name: [] for name in ("xaxis", "yaxis", *filter(is_axis, layout))}
    for trace in data:
        for letter in "xy":
            name = layout_name(trace.get(letter + "axis", letter))
            traces_on.setdefault(name, []).append(trace)
    for name, traces in traces_on.items():
        own = layout.get(name, {})
        out[name] = _under({**AXES[name[0]], **_line_colors(name[0], own, traces)}, own)
    for name in (key for key in layout if key.startswith("coloraxis")):
        axis = layout[name]
        out[name] = {**axis, "colorbar": _under(COLORBAR, axis.get("colorbar", {}))}
    return out


def _line_colors(letter: str, own: dict, traces: list[dict]) -> dict:
    """The theme's colour for each of the axis's grid, zero line and ticks that Plotly will
    draw. An axis's own colour for one of them switches it on (a template's does not), so
    each is coloured only where it is on: set by the figure, or on by Plotly's default —
    ticks under a heatmap, grid and zero line unless the axis places bars."""
    places_bars = any(
        t.get("type") == "bar" and t.get("orientation", "v") == ("v" if letter == "x" else "h")
        for t in traces
    )
    shown = {
        "tickcolor": own.get("ticks", any(t.get("type") == "heatmap" for t in traces)),
        "gridcolor": own.get("showgrid", not places_bars),
        "zerolinecolor": own.get("zeroline", not places_bars),
    }
    return {color: LINES for color, on in shown.items() if on}


def is_axis(key: str) -> bool:
    """Whether a layout key names a cartesian axis ("xaxis", "yaxis3")."""
    number = key[5:]
    return key[:5] in ("xaxis", "yaxis") and (number == "" or number.isdigit())


def layout_name(axis_id: str) -> str:
    """The layout key of the axis a trace names: "x2" → "xaxis2", "y" → "yaxis"."""
    return axis_id[0] + "axis" + axis_id[1:]


def _under(defaults: dict, own: dict | str) -> dict:
    """`own` over a copy of `defaults`, merged key by key through nested dicts; a title
    given as a string is its text."""
    if isinstance(own, str):
        own = {"text": own}
    merged = copy.deepcopy(defaults)
    for key, value in own.items():
        default = defaults.get(key)
        mergeable = isinstance(value, dict) or (key == "title" and isinstance(value, str))
        merged[key] = _under(default, value) if isinstance(default, dict) and mergeable else value
    return merged
