"""Figures from plain dicts, and small-multiple grids laid out by hand.

Plotly validates every property it is given through go.* objects; for a page of
sixteen panels that costs ~100 ms per figure, more than everything else a slider move
does. The builders therefore write traces and layout as plain dicts (checked by the
tests instead) and wrap them once, unvalidated.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import plotly.graph_objects as go

from attention.figures.palette import FONT_SIZE


def figure(data: list[dict], layout: dict, frames: list[dict] | None = None) -> go.Figure:
    """A go.Figure around plain trace/layout dicts, without per-property validation."""
    return go.Figure(data=data, layout=layout, frames=frames, _validate=False)


@dataclass(frozen=True)
class Panel:
    """One cell of a grid: its axis names for traces ("x2") and for layout ("xaxis2")."""

    index: int
    row: int
    col: int
    x: str
    y: str
    bottom: bool  # no panel below this one: the place for x tick labels

    @property
    def xaxis(self) -> str:
        return "xaxis" + self.x[1:]

    @property
    def yaxis(self) -> str:
        return "yaxis" + self.y[1:]

    def place(self, trace: dict) -> dict:
        """The trace drawn in this panel."""
        return {**trace, "xaxis": self.x, "yaxis": self.y}


def grid(
    n_panels: int,
    columns: int,
    titles: list[str] | None = None,
    title_colors: list[str | None] | None = None,
    h_gap: float = 0.03,
    v_gap: float | None = None,
    equal_aspect: bool = False,
) -> tuple[list[Panel], dict]:
    """Panels in rows of `columns`, head 1 top left, and a layout with their axes
    (domains and anchors) and a title above each panel."""
    columns = max(1, min(columns, n_panels))
    rows = math.ceil(n_panels / columns)
    v_gap = min(0.12, 0.3 / rows) if v_gap is None else v_gap
    width = (1 - h_gap * (columns - 1)) / columns
    height = (1 - v_gap * (rows - 1)) / rows
    panels, layout, annotations = [], {}, []
    for i in range(n_panels):
        row, col = divmod(i, columns)
        suffix = "" if i == 0 else str(i + 1)
        panel = Panel(i, row, col, "x" + suffix, "y" + suffix, i + columns >= n_panels)
        x0 = col * (width + h_gap)
        y1 = 1 - row * (height + v_gap)
        layout[panel.xaxis] = {"domain": _span(x0, x0 + width), "anchor": panel.y}
        layout[panel.yaxis] = {"domain": _span(y1 - height, y1), "anchor": panel.x}
        if equal_aspect:
            layout[panel.yaxis].update(scaleanchor=panel.x, scaleratio=1)
        if titles:
            color = title_colors[i] if title_colors else None
            annotations.append(
                {
                    "text": titles[i],
                    "x": x0 + width / 2,
                    "y": y1,
                    "xref": "paper",
                    "yref": "paper",
                    "xanchor": "center",
                    "yanchor": "bottom",
                    "showarrow": False,
                    "font": {"size": FONT_SIZE, **({"color": color} if color else {})},
                }
            )
        panels.append(panel)
    layout["annotations"] = annotations
    return panels, layout


def _span(low: float, high: float) -> list[float]:
    """A domain inside [0, 1] (rounding can push grid edges a hair outside)."""
    return [min(max(round(low, 6), 0.0), 1.0), min(max(round(high, 6), 0.0), 1.0)]
