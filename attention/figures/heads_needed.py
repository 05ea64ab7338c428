"""The "Do we need all these heads?" view: which heads are switched on, each head's
importance, the pruning curve against random orders, and attention rollout."""

from __future__ import annotations

import numpy as np
import plotly.graph_objects as go

from attention.analysis.pruning import CurveBand, PruningCurve
from attention.figures.attention_maps import MAX_GRID_CELLS
from attention.figures.base.checks import check_shape
from attention.figures.base.grid import (
    MARGIN,
    PAGE_TITLE_CHARS,
    TITLE_LINE_PX,
    figure,
    framed_layout,
    grid,
    horizontal_line,
    line_label,
    title_lines,
    vertical_line,
)
from attention.figures.base.palette import (
    BLOCKED_COLOR,
    FOCUS_COLOR,
    FONT_SIZE,
    TOKEN_COLOR,
    WEIGHT_AXIS,
    head_color,
    scale_color,
    signed_axis,
    text_on,
    with_alpha,
)
from attention.figures.base.text import unique_labels

_LAYER_HEAD_CELL_PX = 46  # one layer's row in the 6 × 12 views of heads


def _layer_head_layout(layers: int, heads: int, extra_px: int) -> dict:
    """The layout of a layers × heads chart: its axes, one row of cells per layer plus
    `extra_px` for titles and the colour bar."""
    return {
        **_layer_head_axes(layers, heads),
        "height": layers * _LAYER_HEAD_CELL_PX + extra_px,
        "margin": {**MARGIN, "l": 60, "t": 50},
        "font": {"size": FONT_SIZE},
        "plot_bgcolor": "white",
    }


def _layer_head_axes(layers: int, heads: int) -> dict:
    """Axes of a (layers × heads) view: heads along x, layer 1 at the top."""
    return {
        "xaxis": {
            "title": {"text": "head"},
            "tickvals": list(range(1, heads + 1)),
            "showgrid": False,
            "zeroline": False,
            "side": "top",
        },
        "yaxis": {
            "title": {"text": "layer"},
            "tickvals": list(range(1, layers + 1)),
            "autorange": "reversed",
            "showgrid": False,
            "zeroline": False,
        },
    }


def switches_figure(mask: np.ndarray) -> go.Figure:
    """The (layers, heads) 0/1 mask as a grid of squares: a head that is on in its
    head's colour, one that is off as a light grey outline."""
    check_shape("mask", mask, (None, None))
    layers, heads = np.shape(mask)
    layer, head = np.mgrid[1 : layers + 1, 1 : heads + 1]
    on = np.asarray(mask).ravel() > 0
    colors = [head_color(h - 1) if o else "white" for h, o in zip(head.ravel(), on, strict=True)]
    data = [
        {
            "type": "scatter",
            "x": head.ravel(),
            "y": layer.ravel(),
            "mode": "markers",
            "marker": {
                "symbol": "square",
                "size": 24,
                "color": colors,
                "line": {"color": [TOKEN_COLOR if o else BLOCKED_COLOR for o in on], "width": 1},
            },
            "customdata": np.where(on, "on", "off"),
            "hovertemplate": "layer %{y} · head %{x}: %{customdata}<extra></extra>",
            "showlegend": False,
        }
    ]
    return figure(data, _layer_head_layout(layers, heads, extra_px=90))


_CELL_FONT = {"size": FONT_SIZE - 4}  # numbers written on cells


def cell_numbers(
    z: np.ndarray, number_format: str, scale: list[list], low: float, high: float
) -> dict:
    """A heatmap's texttemplate and text that write each cell's value (`number_format`, a
    d3 and Python format) in black or white, whichever reads better on the cell's colour
    on `scale` from `low` to `high` (palette.text_on); a gap's cell stays blank. As d3
    writes them, numbers that round to zero carry no minus sign."""
    span = (high - low) or 1.0

    def written(value: float) -> str:
        if not np.isfinite(value):
            return ""
        color = text_on(scale_color(scale, (value - low) / span))
        number = f"{value:{number_format}}"
        number = number.lstrip("-") if float(number) == 0 else number
        return f'<span style="color:{color}">{number}</span>'

    return {"texttemplate": "%{text}", "text": [[written(v) for v in row] for row in z]}


def importance_figure(
    values: np.ndarray, on: np.ndarray, title: str, cell_format: str, cell_text: bool = True
) -> go.Figure:
    """A (layers, heads) importance map on the diverging scale (blue = the score drops
    when the head is off, red = it rises); heads already off are left blank. Each cell
    shows its value (d3 `cell_format`, e.g. ".3f") unless `cell_text` is False (a phone:
    12 values across ran into each other; the hover and the table still give them)."""
    check_shape("values", values, (None, None))
    check_shape("on", on, np.shape(values))
    values = np.asarray(values, dtype=np.float64)
    layers, heads = values.shape
    z = np.round(np.where(on, values, np.nan), 6)
    shown = z if np.any(on) else np.zeros_like(values)
    colors = signed_axis(shown[np.isfinite(shown)], title=title, on_trace=True)
    scale, low, high = (colors[key] for key in ("colorscale", "zmin", "zmax"))
    data = [
        {
            "type": "heatmap",
            "z": z,
            "x": list(range(1, heads + 1)),
            "y": list(range(1, layers + 1)),
            **colors,
            "xgap": 2,
            "ygap": 2,
            "hoverongaps": False,
            **(
                {**cell_numbers(z, cell_format, scale, low, high), "textfont": _CELL_FONT}
                if cell_text
                else {}
            ),
            "hovertemplate": f"layer %{{y}} · head %{{x}}<br>{title}: %{{z:{cell_format}}}"
            "<extra></extra>",
        }
    ]
    return figure(data, _layer_head_layout(layers, heads, extra_px=100))


def rollout_figure(
    rows: np.ndarray,
    tokens: list[str],
    focus: int,
    title_chars: int = PAGE_TITLE_CHARS,
    cell_text: bool = True,
) -> go.Figure:
    """Two maps on the shared 0–1 weight scale, layers × key tokens: the focus token's
    raw attention (mean over heads) in each layer, and its rollout in each layer. The
    focus token's own column is framed. `title_chars` as in grid.grid; up to 16 tokens
    each cell shows its weight unless `cell_text` is False (a phone: they ran into each
    other; the hover and the table still give them)."""
    check_shape("rows", rows, (2, None, len(tokens)))
    kinds, layers, n = np.shape(rows)
    labels = unique_labels(tokens)
    focus_label = labels[focus]
    panels, layout = grid(
        kinds,
        1,
        [
            f"raw attention of “{focus_label}” (mean over heads), layer by layer",
            f"rollout of “{focus_label}”: where its vector comes from",
        ],
        v_gap=0.16,
        title_chars=title_chars,
    )
    names = [f"layer {layer + 1}" for layer in range(layers)]
    data, shapes = [], []
    for panel, values, what in zip(panels, rows, ("raw attention", "rollout"), strict=True):
        z = np.round(np.asarray(values, dtype=np.float64), 4)
        trace = {
            "type": "heatmap",
            "z": z,
            "x": labels,
            "y": names,
            "coloraxis": "coloraxis",
            "xgap": 1 if n <= 32 else 0,
            "ygap": 1,
            "hovertemplate": f"%{{y}} · {what}<br>{focus_label} → %{{x}}: %{{z:.3f}}"
            "<extra></extra>",
        }
        if n <= 16 and cell_text:
            scale, low, high = (WEIGHT_AXIS[key] for key in ("colorscale", "cmin", "cmax"))
            trace.update(cell_numbers(z, ".2f", scale, low, high), textfont=_CELL_FONT)
        data.append(panel.place(trace))
        layout[panel.xaxis].update(type="category", showticklabels=n <= MAX_GRID_CELLS)
        layout[panel.yaxis].update(type="category", autorange="reversed")
        shapes.append(
            {
                "type": "rect",
                "xref": panel.x,
                "yref": f"{panel.y} domain",
                "x0": focus - 0.5,
                "x1": focus + 0.5,
                "y0": 0,
                "y1": 1,
                "line": {"color": FOCUS_COLOR, "width": 2},
            }
        )
    top_lines = title_lines(layout["annotations"][0]["text"])  # the top map's title
    layout.update(
        shapes=shapes,
        coloraxis=WEIGHT_AXIS,
        height=2 * (layers * 34 + 60) + 120,
        margin={**MARGIN, "l": 80, "t": 18 + TITLE_LINE_PX * top_lines, "b": 30},
        font={"size": FONT_SIZE},
        plot_bgcolor="white",
    )
    return figure(data, layout)


PRUNED_COLOR = "#000000"  # the importance order


RANDOM_COLOR = "#888888"  # the random orders' band and median


def pruning_figure(
    curve: PruningCurve, band: CurveBand, orders: int, removable: int, drop: float
) -> go.Figure:
    """Accuracy (%) against heads switched off: least important first (black) beside the
    band and median of `orders` random orders (grey); a dotted line `drop` below the
    start and the last point before the importance curve falls to it, marked."""
    removed = curve.removed
    check_shape("curve.scores", curve.scores, np.shape(removed))
    for part in ("low", "median", "high"):
        check_shape(f"band.{part}", getattr(band, part), np.shape(band.removed))
    marked = float(curve.scores[int(np.searchsorted(removed, removable))])  # a measured point
    data = [
        {
            "type": "scatter",
            "x": np.concatenate([band.removed, band.removed[::-1]]),
            "y": np.concatenate([band.high, band.low[::-1]]).round(5) * 100,
            "fill": "toself",
            "mode": "lines",
            "fillcolor": with_alpha(RANDOM_COLOR, 0.25),
            "line": {"width": 0},
            "hoverinfo": "skip",
            "name": f"random orders: lowest to highest of {orders}",
            "legendgroup": "random",
        },
        {
            "type": "scatter",
            "x": band.removed,
            "y": band.median.round(5) * 100,
            "mode": "lines",
            "line": {"color": RANDOM_COLOR, "dash": "dash", "width": 2},
            "name": "random orders: median",
            "legendgroup": "random",
            "hovertemplate": "%{x} heads off in a random order<br>median accuracy "
            "%{y:.1f} %<extra></extra>",
        },
        {
            "type": "scatter",
            "x": removed,
            "y": curve.scores.round(5) * 100,
            "mode": "lines",
            "line": {"color": PRUNED_COLOR, "width": 3},
            "name": "least important first",
            "hovertemplate": "%{x} heads off, least important first<br>accuracy "
            "%{y:.1f} %<extra></extra>",
        },
        {
            "type": "scatter",
            "x": [removable],
            "y": [round(marked * 100, 3)],
            "mode": "markers+text",
            "marker": {"color": PRUNED_COLOR, "size": 14, "symbol": "diamond"},
            "text": [f"{removable} heads off"],
            "textposition": "bottom left",
            "name": f"last point within {drop * 100:.0f} points",
            "hovertemplate": "%{x} heads off: accuracy %{y:.1f} %<extra></extra>",
        },
    ]
    floor = (float(curve.scores[0]) - drop) * 100
    layout = {
        "shapes": [
            horizontal_line(floor, {"color": "#555555", "dash": "dot"}),
            vertical_line(removable, {"color": PRUNED_COLOR, "dash": "dot", "width": 1}),
        ],
        "annotations": [line_label(floor, f"{drop * 100:.0f} points below all heads")],
        "xaxis": {"title": {"text": "heads switched off"}, "range": [-1, int(removed[-1]) + 1]},
        "yaxis": {"title": {"text": "paraphrase accuracy (%)"}},
    }
    return figure(data, framed_layout(layout, 460, legend={"orientation": "h", "y": -0.2}))
