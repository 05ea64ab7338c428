"""Figures from plain dicts, and small-multiple grids laid out by hand.

Plotly validates every property it is given through go.* objects; for a page of
sixteen panels that costs more than everything else a slider move does, and even
unvalidated objects are slow to build and copy (docs/speed-history.md). The builders
therefore write traces and layout as plain dicts (checked by the tests instead), and
`figure` hands Streamlit those dicts as they are (PlainFigure).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import plotly.graph_objects as go

from attention.figures.base.margins import reserved
from attention.figures.base.palette import FONT_SIZE
from attention.figures.base.theme import layout_name, themed

MARGIN = {"l": 10, "r": 10, "t": 50, "b": 10}  # figures fill the page's column
# Title characters across the page's main column in the narrowest window the pages are
# laid out for: 1024 px with the sidebar open leaves charts a 535-px column, where 66
# were measured to fit (1280 px: 791 px, 90). A figure in part of the column takes
# that share of them.
PAGE_TITLE_CHARS = 66
HALF_PAGE_TITLE_CHARS = PAGE_TITLE_CHARS // 2  # a figure in half the column
# A phone 390 px wide leaves charts ~358 px: 66 × 358 / 535 characters.
PHONE_TITLE_CHARS = 44
TITLE_LINE_PX = 22  # a title line's height at the figures' font size
CHART_MARGIN = {**MARGIN, "t": 60}
AXIS_FRAME = {"showline": True, "linecolor": "#888888", "gridcolor": "#EEEEEE"}
# Streamlit draws every new figure in a newly mounted chart (its element id hashes the
# spec; tests/browser/test_browser_draws.py checks it), then themes it through a JSON copy and
# calls Plotly.react again. Without a datarevision Plotly takes each copied array for
# new data and draws the whole chart once more; a fixed one says nothing changed, which
# holds: a mounted chart is never handed other data.
DATAREVISION = 1


def figure(data: list[dict], layout: dict, frames: list[dict] | None = None) -> go.Figure:
    """A figure around plain trace/layout dicts, without per-property validation.
    NumPy arrays become lists: Plotly checks and copies every array it is given when it
    writes the figure's JSON, which took 3–10× the time of the same JSON from lists."""
    traces = _plain(data)
    plain = {"data": traces, "layout": reserved(traces, themed(traces, _plain(layout)))}
    if frames:
        plain["frames"] = _plain(frames)
    return PlainFigure(plain)


class PlainFigure(go.Figure):
    """A go.Figure that keeps the plain dict it was made from and hands it out as its
    `to_dict()` (all st.plotly_chart and plotly.io ask of a figure), building Plotly's
    objects only when something reads them (`fig.data`, `fig.layout`, …). Building
    them, even unvalidated, took longer than the rest of a rerun
    (docs/speed-history.md)."""

    def __init__(self, plain: dict) -> None:
        object.__setattr__(self, "_plain", plain)
        object.__setattr__(self, "_building", False)

    def __getattr__(self, name: str) -> object:
        """Only called for attributes not set yet: build Plotly's figure state once."""
        if name.startswith("__") or self._building or "_data_objs" in self.__dict__:
            raise AttributeError(name)
        object.__setattr__(self, "_building", True)
        go.Figure.__init__(self, self._plain, _validate=False)
        object.__setattr__(self, "_building", False)
        return getattr(self, name)

    def to_dict(self) -> dict:
        """The figure as plotly.io writes it: the plain dict, every trace typed; once
        built, Plotly's own, so a change made through fig.update_*() is kept. Either way
        without a template (the look is in the layout: theme.py) and with DATAREVISION."""
        if "_data_objs" in self.__dict__:
            spec = super().to_dict()
            spec["layout"].pop("template", None)
        else:
            data = [t if "type" in t else {"type": "scatter", **t} for t in self._plain["data"]]
            spec = {**self._plain, "data": data, "layout": dict(self._plain["layout"])}
        spec["layout"]["datarevision"] = DATAREVISION
        return spec

    to_plotly_json = to_dict


def _plain(value: object) -> object:
    """`value` with every NumPy array (and NumPy scalar) in it turned into Python lists
    (and numbers), through nested dicts and lists."""
    if isinstance(value, np.ndarray | np.generic):
        return value.tolist()
    if isinstance(value, dict):  # None means "not set", as go.Figure takes it
        return {key: _plain(item) for key, item in value.items() if item is not None}
    if isinstance(value, list | tuple):
        return [_plain(item) for item in value]
    return value


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
        return layout_name(self.x)

    @property
    def yaxis(self) -> str:
        return layout_name(self.y)

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
    row_heights: list[float] | None = None,
    title_chars: int = PAGE_TITLE_CHARS,
) -> tuple[list[Panel], dict]:
    """Panels in rows of `columns`, head 1 top left, and a layout with their axes
    (domains and anchors) and a title above each panel. Rows share the height equally,
    or in proportion to `row_heights` (one number per row, top row first). Titles wider
    than their panel's share of `title_chars` (the characters across the whole figure
    at its narrowest: PAGE_TITLE_CHARS at full page width, fewer in a column) break
    into lines."""
    columns = max(1, min(columns, n_panels))
    rows = math.ceil(n_panels / columns)
    v_gap = min(0.12, 0.3 / rows) if v_gap is None else v_gap
    width = (1 - h_gap * (columns - 1)) / columns
    shares = [1.0] * rows if row_heights is None else list(row_heights)
    heights = [(1 - v_gap * (rows - 1)) * share / sum(shares) for share in shares]
    tops = [1 - sum(heights[:row]) - row * v_gap for row in range(rows)]
    panels, layout, annotations = [], {}, []
    for i in range(n_panels):
        row, col = divmod(i, columns)
        suffix = "" if i == 0 else str(i + 1)
        panel = Panel(i, row, col, "x" + suffix, "y" + suffix, i + columns >= n_panels)
        x0, y1 = col * (width + h_gap), tops[row]
        layout[panel.xaxis] = {"domain": _span(x0, x0 + width), "anchor": panel.y}
        layout[panel.yaxis] = {"domain": _span(y1 - heights[row], y1), "anchor": panel.x}
        if equal_aspect:
            layout[panel.yaxis].update(scaleanchor=panel.x, scaleratio=1)
        if titles:
            color = title_colors[i] if title_colors else None
            annotations.append(
                {
                    "text": wrapped_title(titles[i], panel_title_chars(title_chars, width)),
                    "x": x0 + width / 2,
                    "y": y1,
                    "yshift": 4,  # clear of the panel's top edge
                    "xref": "paper",
                    "yref": "paper",
                    "xanchor": "center",
                    "yanchor": "bottom",
                    "showarrow": False,
                    "font": {"size": FONT_SIZE, **({"color": color} if color else {})},
                }
            )
        panels.append(panel)
    if annotations:
        layout["annotations"] = annotations
    return panels, layout


def wrapped_title(title: str, chars: int) -> str:
    """A title whose lines run longer than `chars` broken at spaces into about len / chars
    lines of about equal length, so neighbouring titles in narrow panels keep apart; line
    breaks already there stay."""
    return "<br>".join(_wrapped_line(line, chars) for line in title.split("<br>"))


def _wrapped_line(line: str, chars: int) -> str:
    """`line` in at most ceil(len / chars) lines with the longest as short as can be: the
    narrowest width at which filling the lines greedily (the fewest lines for a width)
    needs no more. Cuts only at spaces, never before a "·"."""
    cuts = [i for i, c in enumerate(line) if c == " " and not line[i + 1 :].startswith("·")]
    if len(line) <= chars or not cuts:
        return line
    starts = [0, *(cut + 1 for cut in cuts)]
    words = [line[a:b] for a, b in zip(starts, [*cuts, len(line)], strict=True)]
    lines = math.ceil(len(line) / chars)
    narrowest = max(max(map(len, words)), math.ceil(len(line) / lines))
    width = next(w for w in range(narrowest, len(line) + 1) if len(_filled(words, w)) <= lines)
    return "<br>".join(_filled(words, width))


def _filled(words: list[str], width: int) -> list[str]:
    """`words` filled into lines of at most `width` characters, each line as full as it
    goes before the next (a word longer than `width` alone on its line)."""
    rows = [words[0]]
    for word in words[1:]:
        if len(rows[-1]) + 1 + len(word) <= width:
            rows[-1] += " " + word
        else:
            rows.append(word)
    return rows


def panel_title_chars(title_chars: int, share: float) -> int:
    """Title characters across a panel `share` of a figure `title_chars` wide (at least
    12: narrower panels get short titles anyway)."""
    return max(12, round(title_chars * share))


def title_lines(text: str) -> int:
    """How many lines a Plotly text takes."""
    return text.count("<br>") + 1


def titles_margin(layout: dict) -> dict:
    """CHART_MARGIN with its top deep enough for the longest panel title `grid` wrote."""
    lines = max((title_lines(a["text"]) for a in layout.get("annotations", [])), default=1)
    return {**CHART_MARGIN, "t": max(CHART_MARGIN["t"], 20 + TITLE_LINE_PX * lines)}


def titled(layout: dict, text: str, share: float = 1.0, size: int = FONT_SIZE + 2) -> dict:
    """`layout` with the figure title `text` at font `size`, broken into lines to fit a
    figure `share` of the page's column wide in the narrowest window, and its top margin
    deeper by a line for each line past the first."""
    chars = round(PAGE_TITLE_CHARS * share * FONT_SIZE / size)
    wrapped = wrapped_title(text, chars)
    margin = {**MARGIN, **layout.get("margin", {})}
    margin["t"] += TITLE_LINE_PX * (title_lines(wrapped) - 1)
    return {**layout, "title": {"text": wrapped, "font": {"size": size}}, "margin": margin}


def framed_layout(layout: dict, height: int, margin: dict | None = None, **extra) -> dict:
    """The experiment charts' look: page font, white plot, every axis (and at least x
    and y) framed by a grey line over a light grid, axis titles at the page's size."""
    layout.update(
        height=height,
        font={"size": FONT_SIZE},
        margin={**CHART_MARGIN, **(margin or {})},
        plot_bgcolor="white",
        **extra,
    )
    for name in {"xaxis", "yaxis", *(k for k in layout if k.startswith(("xaxis", "yaxis")))}:
        axis = layout.setdefault(name, {})
        axis.update(AXIS_FRAME, tickfont={"size": FONT_SIZE - 2})
        axis["title"] = {**axis.get("title", {}), "font": {"size": FONT_SIZE}}
    return layout


def vertical_line(x: float, line: dict, panel: Panel | None = None) -> dict:
    """The shape of a line at x across the panel's whole height (x and y axes by default)."""
    x_ref, y_ref = (panel.x, panel.y) if panel else ("x", "y")
    return {
        "type": "line",
        "x0": x,
        "x1": x,
        "xref": x_ref,
        "y0": 0,
        "y1": 1,
        "yref": f"{y_ref} domain",
        "line": line,
    }


def horizontal_line(y: float, line: dict, panel: Panel | None = None) -> dict:
    """The shape of a line at y across the panel's whole width."""
    x_ref, y_ref = (panel.x, panel.y) if panel else ("x", "y")
    return {
        "type": "line",
        "x0": 0,
        "x1": 1,
        "xref": f"{x_ref} domain",
        "y0": y,
        "y1": y,
        "yref": y_ref,
        "line": line,
    }


def line_label(y: float, text: str, panel: Panel | None = None) -> dict:
    """A label sitting on the right end of a horizontal line at y."""
    x_ref, y_ref = (panel.x, panel.y) if panel else ("x", "y")
    return {
        "text": text,
        "showarrow": False,
        "x": 1,
        "xanchor": "right",
        "xref": f"{x_ref} domain",
        "y": y,
        "yanchor": "bottom",
        "yref": y_ref,
    }


def note_above(x: float, text: str, **style: object) -> dict:
    """A label above the plot at x (where a vertical line is drawn)."""
    return {"x": x, "y": 1, "yref": "paper", "text": text, "showarrow": False,
            "yanchor": "bottom", **style}  # fmt: skip


def rectangles_path(boxes: list[tuple[float, float, float, float]]) -> str:
    """SVG path of the (x0, y0, x1, y1) rectangles: many outlines or fills drawn as ONE
    layout shape, far cheaper in the browser than a shape each."""
    rounded = ([round(float(v), 4) for v in box] for box in boxes)  # a 10,000th of a cell
    return "".join(f"M{x0},{y0}H{x1}V{y1}H{x0}Z" for x0, y0, x1, y1 in rounded)


def _span(low: float, high: float) -> list[float]:
    """A domain inside [0, 1] (rounding can push grid edges a hair outside)."""
    return [min(max(round(low, 6), 0.0), 1.0), min(max(round(high, 6), 0.0), 1.0)]


def tiled(maps: np.ndarray, row_gap: int, col_gap: int) -> np.ndarray:
    """(rows, cols, m, k) maps as ONE float64 matrix, tile (r, c) at rows r·(m + row_gap)
    and columns c·(k + col_gap), NaN gutters between tiles: a grid of maps drawn as one
    heatmap trace, far cheaper in the browser than one subplot per map. Float64, so
    that rounding it shortens the JSON: a rounded float32 prints ~18 digits a number."""
    rows, cols, m, k = maps.shape
    out = np.full((rows, m + row_gap, cols, k + col_gap), np.nan)
    out[:, :m, :, :k] = np.asarray(maps).transpose(0, 2, 1, 3)
    out = out.reshape(rows * (m + row_gap), cols * (k + col_gap))
    return out[: rows * (m + row_gap) - row_gap, : cols * (k + col_gap) - col_gap]


def tiled_labels(groups: list[str], labels: list[str], gap: int) -> list[str]:
    """Category labels along one side of a `tiled` matrix: "group: label" for each cell,
    unique placeholders in the gutters (NaN cells there have no hover, no tick)."""
    out: list[str] = []
    for g, group in enumerate(groups):
        if g:
            out += [f"gap {g}.{i}" for i in range(gap)]
        out += [f"{group}: {label}" for label in labels]
    return out
