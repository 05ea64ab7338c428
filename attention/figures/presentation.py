"""Figures for slides: a caption inside the image saying what it shows (so a PNG pasted
into a slide carries its sentence and settings), fonts scaled up for a projector, and
the height left to the page so the figure can fill the screen."""

from __future__ import annotations

import plotly.graph_objects as go

from attention.figures.grid import figure
from attention.figures.text import safe_label

_FONT_KEYS = {"font", "tickfont", "textfont", "insidetextfont", "outsidetextfont"}
PLOTLY_DEFAULT_FONT = 12


def _scaled(node: object, factor: float, under_font: bool = False) -> object:
    """A copy of a figure dict with every font size multiplied by `factor`."""
    if isinstance(node, dict):
        return {
            key: (
                round(value * factor, 1)
                if under_font and key == "size" and isinstance(value, int | float)
                else _scaled(value, factor, key in _FONT_KEYS)
            )
            for key, value in node.items()
        }
    if isinstance(node, list):
        return [_scaled(item, factor) for item in node]
    return node


def for_slides(
    fig: go.Figure, caption: list[str], font_scale: float = 1.0, fill_height: bool = False
) -> go.Figure:
    """`fig` with the `caption` lines written small inside it (escaped: they hold the
    user's sentence) — under the figure's title when it has one, else along its bottom edge —,
    fonts × `font_scale`, and with `fill_height` no fixed height (the page's container
    decides it)."""
    spec = fig.to_dict()
    layout = dict(spec.get("layout", {}))  # the figure's own dicts stay as they were
    layout["font"] = {"size": PLOTLY_DEFAULT_FONT, **layout.get("font", {})}
    spec["layout"] = layout
    if font_scale != 1.0:
        spec = _scaled(spec, font_scale)
        layout = spec["layout"]
    text = "<br>".join(safe_label(line, 120) for line in caption)
    note = {"text": text, "font": {"size": 11, "color": "#666666"}}
    title = layout.get("title", {})
    if title.get("text"):  # keep the figure's title; the caption goes under it, clear
        layout["title"] = {**title, "subtitle": note}  # of labels above the top points
        margin = layout.get("margin", {})
        layout["margin"] = {**margin, "t": margin.get("t", 80) + 14 * (len(caption) + 1)}
    else:  # the caption as a title along the bottom edge, kept clear of the axes
        layout["title"] = {
            **note,
            "xref": "container",
            "yref": "container",
            "x": 0.01,
            "xanchor": "left",
            "y": 0.005,
            "yanchor": "bottom",
            "automargin": True,
        }
    if fill_height:
        layout.pop("height", None)
        layout["autosize"] = True
    return figure(spec.get("data", []), layout, spec.get("frames"))
