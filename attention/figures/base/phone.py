"""A figure laid out again for a phone: colour bars and a legend that stood at the right
of the plot go under it. At the right they took 90–170 px of a 390-px screen, which left
some plots under 110 px wide."""

from __future__ import annotations

import copy

import plotly.graph_objects as go

from attention.figures.base.grid import figure
from attention.figures.base.margins import bottom_bar_height, text_width
from attention.figures.base.theme import COLORBAR

BAR_BELOW = {  # a colour bar lying along the figure's bottom edge
    "orientation": "h",
    "x": 0,
    "xanchor": "left",
    "y": 0,
    "yref": "container",
    "yanchor": "bottom",
    "lenmode": "pixels",
    "thickness": 12,
    "ypad": 4,
    "nticks": 4,  # upright labels, not turned on their side to fit in
}
LEGEND_BELOW = {"orientation": "h", "x": 0, "xanchor": "left", "y": -0.25, "yanchor": "top"}
BAR_PX = 160  # a bar's own length: readable under the narrowest grid too
TITLE_GAP_PX = 12  # between a bar and its title beside it
SIDE_MARGIN_PX = 10  # the right margin once nothing stands there (figure() widens it if
# an axis's labels need more)


def for_phone(fig: go.Figure) -> go.Figure:
    """`fig` with its upright colour bars (a colour axis's, or a heatmap's own) laid along
    the bottom, one under another, each title beside its bar (a title on top of a
    horizontal bar is drawn over it), and a legend at the right laid under the plot: the
    figure grows by the bars' height and its right margin is worked out again without
    them. A figure with neither comes back as it is."""
    plain = copy.deepcopy(fig.to_dict())
    data, layout = plain["data"], plain["layout"]
    bars = _side_bars(data, layout)
    legend = _side_legend(data, layout)
    if not bars and not legend:
        return fig
    band = 0.0
    for owner in reversed(bars):  # the first bar on top
        bar = owner.setdefault("colorbar", {})
        title = {"font": COLORBAR["title"]["font"], **bar.get("title", {}), "side": "right"}
        title_px = text_width(title.get("text", ""), title["font"]["size"])
        # Plotly counts the title beside a lying bar in its length: leave the bar its own.
        length = BAR_PX + title_px + TITLE_GAP_PX
        bar.setdefault("tickfont", COLORBAR["tickfont"])  # a heatmap's own bar: the theme's
        bar.update(BAR_BELOW, title=title, len=round(length), y=band)
        band += bottom_bar_height(bar)
    height = layout.get("height", 450) + band
    for owner in bars:  # the offsets as shares of the grown figure's height
        owner["colorbar"]["y"] /= height
    if legend:
        layout["legend"] = {**layout.get("legend", {}), **LEGEND_BELOW}
    margin = layout.get("margin", {})
    layout.update(
        height=round(height),
        margin={**margin, "b": margin.get("b", 80) + round(band), "r": SIDE_MARGIN_PX},
    )
    return figure(data, layout, plain.get("frames"))


def _side_bars(data: list[dict], layout: dict) -> list[dict]:
    """The colour axes and heatmaps whose colour bar Plotly draws upright at the right."""
    owners = [axis for name, axis in layout.items() if name.startswith("coloraxis")]
    owners += [t for t in data if t.get("type") == "heatmap" and "coloraxis" not in t]
    return [
        owner
        for owner in owners
        if owner.get("showscale", True) is not False
        and owner.get("colorbar", {}).get("orientation", "v") == "v"
    ]


def _side_legend(data: list[dict], layout: dict) -> bool:
    """Whether Plotly draws a legend upright at the plot's right."""
    shown = layout.get("showlegend") is not False and any(
        trace.get("showlegend") is not False for trace in data
    )
    return shown and layout.get("legend", {}).get("orientation", "v") != "h"
