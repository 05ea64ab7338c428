"""Any figure as table rows: the numbers its traces draw, read from the figure itself, so
the "Show as table" view holds exactly what the chart shows (the Lesson's charts, and the
pages' charts whose numbers are whole matrices or curves). Points and bars
give a row each, a heatmap a row per row of cells (at most MAX_ROWS × MAX_COLUMNS), a
Plotly table its own cells. Tiny and huge numbers are written without e-notation."""

from __future__ import annotations

import math
import re

from attention.figures.tables import shown_number
from attention.wording import PLAIN_RANGE, power_of_ten

MAX_ROWS = 60
MAX_COLUMNS = 24
_TAGS = re.compile(r"<[^>]+>")


def cell(value: object) -> object:
    """A number as a table cell: rounded, or as text ("2.4 × 10⁻¹⁶") when it is tiny or
    huge; text without Plotly's markup; nothing for a gap."""
    if value is None:
        return ""
    if isinstance(value, bool) or not isinstance(value, int | float):
        return _TAGS.sub("", str(value))
    if not math.isfinite(value):
        return ""
    low, high = PLAIN_RANGE
    if value != 0 and not low <= abs(value) < high:
        return power_of_ten(value, 2)
    return value if isinstance(value, int) else shown_number(value)


def drawn(trace: dict) -> bool:
    """Whether a trace draws numbers a reader looks up (not a guide line without hover)."""
    return trace.get("hoverinfo") != "skip" and trace.get("visible", True) is not False


def _label(trace: dict, index: int) -> str:
    for field in ("text", "hovertext"):
        labels = trace.get(field)
        if isinstance(labels, list | tuple) and index < len(labels):
            return str(cell(labels[index]))
    return ""


def _points(trace: dict) -> list[dict[str, object]]:
    name = str(trace.get("name") or "points")
    xs, ys = trace.get("x") or [], trace.get("y") or []
    return [
        {"drawn": cell(name), "label": _label(trace, i), "x": cell(x), "y": cell(y)}
        for i, (x, y) in enumerate(zip(xs, ys, strict=False))
        if x is not None and y is not None
    ][:MAX_ROWS]


def _bars(trace: dict) -> list[dict[str, object]]:
    name = str(trace.get("name") or "bars")
    horizontal = trace.get("orientation") == "h"
    values, labels = (
        (trace.get("x"), trace.get("y")) if horizontal else (trace.get("y"), trace.get("x"))
    )
    labels = labels if labels is not None else list(range(1, len(values or []) + 1))
    return [
        {"drawn": cell(name), "label": cell(label), "value": cell(value)}
        for label, value in zip(labels, values or [], strict=False)
    ][:MAX_ROWS]


def _heatmap(trace: dict) -> list[dict[str, object]]:
    z = trace.get("z") or []
    columns = trace.get("x") or list(range(1, (len(z[0]) if z else 0) + 1))
    rows = trace.get("y") or list(range(1, len(z) + 1))
    name = str(trace.get("name") or "cells")
    table = []
    for label, values in zip(rows, z, strict=False):
        if all(v is None for v in values):
            continue  # a gap row between blocks
        if len(table) == MAX_ROWS:
            break
        shown = zip(columns[:MAX_COLUMNS], values[:MAX_COLUMNS], strict=False)
        table.append(
            {"drawn": cell(name), "row": cell(label), **{str(cell(c)): cell(v) for c, v in shown}}
        )
    return table


def _table(trace: dict) -> list[dict[str, object]]:
    header = [str(cell(h)) for h in trace["header"]["values"]]
    columns = trace["cells"]["values"]
    return [
        dict(zip(header, (cell(c[i]) for c in columns), strict=True))
        for i in range(min(len(columns[0]), MAX_ROWS))
    ]


def figure_rows(spec: dict) -> list[dict[str, object]]:
    """The rows of every drawn trace of a figure dict (`fig.to_dict()`), in trace order."""
    rows: list[dict[str, object]] = []
    for trace in spec.get("data", []):
        kind = trace.get("type", "scatter")
        if not drawn(trace):
            continue
        if kind in ("scatter", "scattergl"):
            rows += _points(trace)
        elif kind == "bar":
            rows += _bars(trace)
        elif kind == "heatmap":
            rows += _heatmap(trace)
        elif kind == "table":
            rows += _table(trace)
    return rows


def frame_rows(spec: dict) -> list[dict[str, object]]:
    """An animation's rows: figure_rows of each named resting frame (the moves between
    them, named "to …", only repeat the frame they arrive at), stage by stage."""
    return [
        {"stage": frame["name"], **row}
        for frame in spec.get("frames", [])
        if not str(frame.get("name", "")).startswith("to ")
        for row in figure_rows(frame)
    ]


def cut_parts(spec: dict) -> list[tuple[int, int]]:
    """(rows, columns) of each drawn trace the table cuts to MAX_ROWS × MAX_COLUMNS: a
    heatmap's cells, or (points or bars, 0) for a trace of more than MAX_ROWS marks."""
    cut = []
    for trace in filter(drawn, spec.get("data", [])):
        kind = trace.get("type", "scatter")
        if kind == "heatmap" and (z := trace.get("z")):
            rows, columns = len(z), max(len(row) for row in z)
            if rows > MAX_ROWS or columns > MAX_COLUMNS:
                cut.append((rows, columns))
        elif kind in ("scatter", "scattergl", "bar") and len(trace.get("x") or []) > MAX_ROWS:
            cut.append((len(trace["x"]), 0))
    return cut
