"""The real-model view: a real model's (layers × heads) maps in one grid, with a role
score framing each map, one head's map at full size, and the tokens' path through the
layers' hidden states in one PCA plane."""

from __future__ import annotations

import numpy as np
import plotly.graph_objects as go
from plotly.colors import sample_colorscale

from attention.figures.attention_maps import MAX_GRID_CELLS, attention_grid_parts, block_labels
from attention.figures.base.checks import check_shape
from attention.figures.base.grid import (
    figure,
    tiled,
    tiled_labels,
    titled,
)
from attention.figures.base.map_tiles import MAP_FRAME, MapTiles
from attention.figures.base.palette import (
    FONT_SIZE,
    ROLE_SCALE,
    WEIGHT_AXIS,
    head_color,
    scale_pairs,
)
from attention.figures.base.text import safe_label
from attention.figures.base.theme import TEXT_COLOR
from attention.geometry.planes import Layout2D

GRID_BLOCKS = 32  # the real model's 72 small maps of a longer text: blocks per side


GRID_CELL_PX = 92  # height of one layer's row in the real model's grid


_GUTTER = (0.3, 0.15)  # space between a layer's maps (rows) and a head's (columns), per map


_ROLE_TEXT_PX = 18  # room above the top row for the role values


def head_grid_figure(
    pooled: np.ndarray,
    tokens: list[str],
    selected: tuple[int, int] | None = None,
    role: str | None = None,
    role_values: np.ndarray | None = None,
    narrow: bool = False,
) -> go.Figure:
    """All (layers, heads, m, m) maps as one grid: layer rows, head columns, shared 0–1
    colour scale, drawn as ONE heatmap trace (grid.tiled). The caller pools maps longer
    than GRID_BLOCKS tokens to GRID_BLOCKS blocks a side (attention.geometry.pooling.
    pool_attention; each small map is ~80 px wide: more cells than pixels cost the
    browser time and show nothing more; 72 full 64-token maps were 5.6 MB on the wire).
    `selected` (0-based layer, head) gets a frame in its head's colour; `role_values`
    (layers, heads) frames every map in a colour scale running from 0 to the largest
    head's value and writes the value above the map. `narrow` (a phone, ~20 px a map)
    labels the columns with bare head numbers and says so in the axis title, and leaves
    the role values to the table (written above maps that narrow, they ran together)."""
    m = min(len(tokens), np.shape(pooled)[-1])
    check_shape("pooled", pooled, (None, None, m, m))
    if role_values is not None:
        check_shape("role_values", role_values, np.shape(pooled)[:2])
    layers, heads = np.shape(pooled)[:2]
    row_gap, col_gap = (max(1, round(share * m)) for share in _GUTTER)
    labels = block_labels(tokens, m)
    layer_names = [f"layer {layer + 1}" for layer in range(layers)]
    y = tiled_labels([f"{name} · query" for name in layer_names], labels, row_gap)
    x = tiled_labels([f"head {head + 1} · key" for head in range(heads)], labels, col_gap)
    tiles = MapTiles(m, m, row_gap, col_gap)
    axis = {"type": "category", "showgrid": False, "zeroline": False, "ticks": ""}
    layout = {
        "xaxis": {
            **axis,
            "showticklabels": False,
            "title": {
                "text": "heads (numbered above) · keys →" if narrow else "keys →",
                "standoff": 4,
            },
        },
        "yaxis": {
            **axis,
            "autorange": "reversed",
            "tickvals": [y[tiles.row_start(layer) + m // 2] for layer in range(layers)],
            "ticktext": layer_names,
            "tickfont": {"color": TEXT_COLOR},
        },
    }
    role_px = 0 if role_values is None or narrow else _ROLE_TEXT_PX
    layout.update(
        annotations=[
            {
                # two short lines: 12 fit at 1024 px; a phone has room for the number
                "text": str(head + 1) if narrow else f"head<br>{head + 1}",
                "xref": "x",
                "yref": "paper",
                "x": tiles.col_middle(head),
                "y": 1.0,
                "yanchor": "bottom",
                "yshift": role_px,
                "showarrow": False,
                "font": {"color": head_color(head), "size": FONT_SIZE - 3},
            }
            for head in range(heads)
        ],
        coloraxis={**WEIGHT_AXIS, "colorbar": {**WEIGHT_AXIS["colorbar"], "len": 0.6}},
        height=layers * GRID_CELL_PX + 110,
        margin={"l": 70, "r": 10, "t": 54 + role_px, "b": 40},
        font={"size": FONT_SIZE},
        plot_bgcolor="white",
    )
    shapes = [tiles.outlines(layers * heads, heads)]
    data = [
        {
            "type": "heatmap",
            "z": np.round(tiled(pooled, row_gap, col_gap), 5),
            "x": x,
            "y": y,
            "coloraxis": "coloraxis",
            "hoverongaps": False,
            "hovertemplate": "%{y}<br>%{x}<br>weight: %{z:.3f}<extra></extra>",
            "name": f"{layers} layers × {heads} heads",
        }
    ]
    if role_values is not None:
        values = np.asarray(role_values)
        data.append(_mark_roles(layout, shapes, tiles, role or "role", values, not narrow))
    if selected is not None:
        shapes.append(tiles.frame(*selected, head_color(selected[1])))
    layout["shapes"] = shapes
    return figure(data, layout)


def _mark_roles(
    layout: dict,
    shapes: list[dict],
    tiles: MapTiles,
    role: str,
    values: np.ndarray,
    numbers: bool = True,
) -> dict:
    """Frame each map in the role's colour scale (into `shapes`) and, with `numbers`,
    write its value above the map (into `layout`); returns an invisible trace that
    carries the role's colour bar."""
    top = float(values.max()) if values.max() > 0 else 1.0
    colors = sample_colorscale(ROLE_SCALE, list(np.clip(values.ravel() / top, 0, 1)))
    layers, heads = values.shape
    for (layer, head), color in zip(np.ndindex(layers, heads), colors, strict=True):
        shapes.append(tiles.frame(layer, head, color))
        if not numbers:
            continue
        layout["annotations"].append(
            {
                "text": f"{values[layer, head]:.2f}",
                "xref": "x",
                "yref": "y",
                "x": tiles.col_middle(head),
                "y": tiles.box(layer, head, MAP_FRAME)["y0"],
                "yanchor": "bottom",
                "showarrow": False,
                "font": {"size": FONT_SIZE - 3, "color": TEXT_COLOR},
            }
        )
    layout["coloraxis2"] = {
        "colorscale": scale_pairs(ROLE_SCALE),
        "cmin": 0.0,
        "cmax": top,
        "colorbar": {
            "title": {"text": safe_label(role, 30)},
            "thickness": 14,
            "len": 0.35,
            "y": 0.0,
            "yanchor": "bottom",
            "x": 1.08,
        },
    }
    return {
        "type": "scatter",
        "x": [None],
        "y": [None],
        "mode": "markers",
        "marker": {"color": [0.0], "coloraxis": "coloraxis2"},
        "showlegend": False,
        "hoverinfo": "skip",
    }


def head_figure(
    weights: np.ndarray, tokens: list[str], layer: int, head: int, stretch: bool = False
) -> go.Figure:
    """One head's (n, n) map at full resolution (0-based layer and head), its title in
    the head's colour. `stretch` runs the colour scale up to this head's largest weight
    instead of 1, for long texts whose weights are spread thin."""
    check_shape("weights", weights, (len(tokens), len(tokens)))
    n = len(tokens)
    data, layout = attention_grid_parts(
        np.asarray(weights)[None],
        tokens,
        titles=[f"layer {layer + 1} · head {head + 1}"],
        columns=1,
        panel_px=int(np.clip(18 * n, 480, 740)),
        head_colors=False,
    )
    layout["annotations"][0]["font"] = {"color": head_color(head), "size": FONT_SIZE + 4}
    if stretch:
        top = float(np.max(weights))
        title = {"text": f"weight (0 to {top:.2f})"}
        layout["coloraxis"] = {
            **WEIGHT_AXIS,
            "cmax": top,
            "colorbar": {**WEIGHT_AXIS["colorbar"], "title": title},
        }
    if n > MAX_GRID_CELLS:
        layout["xaxis"].update(showticklabels=False, title={"text": "key (hover for the token)"})
        layout["yaxis"].update(showticklabels=False, title={"text": "query (hover for the token)"})
    return figure(data, layout)


LAYER_SCALE = "Viridis"  # colour-blind-safe order from embeddings (light) to last layer


MAX_NAMED_TOKENS = 40  # the layer-path figure writes token names up to this many


MAX_SVG_TOKENS = 128  # and draws its points in SVG up to this many tokens, WebGL past it


def layer_path_figure(
    paths: Layout2D, tokens: list[str], max_labels: int = MAX_NAMED_TOKENS
) -> go.Figure:
    """Each token's path through the layers: `paths` is the hidden states in ONE PCA
    plane fitted on all of them (attention.geometry.planes.hidden_state_paths, coords
    (layers + 1, n, 2)), so every layer's move is drawn on the same axes. Tokens are named at
    their first point when there are at most `max_labels` of them; past MAX_SVG_TOKENS
    tokens the points are drawn with WebGL (faster at 512 tokens; at 128 creating the
    WebGL context costs more than drawing the points in SVG, in headless Chromium)."""
    check_shape("paths.coords", paths.coords, (None, len(tokens), 2))
    steps, n = np.shape(paths.coords)[:2]
    kind = "scatter" if n <= MAX_SVG_TOKENS else "scattergl"
    coords = np.round(paths.coords, 3)  # 0.001: a fraction of a pixel
    labels = [safe_label(t) for t in tokens]
    names = ["embeddings"] + [f"after layer {i}" for i in range(1, steps)]
    colors = sample_colorscale(LAYER_SCALE, list(np.linspace(0.0, 0.85, steps)))
    tracks = np.full((n, steps + 1, 2), np.nan)
    tracks[:, :steps] = coords.transpose(1, 0, 2)
    data = [
        {
            "type": kind,
            "x": tracks[..., 0].ravel(),
            "y": tracks[..., 1].ravel(),
            "mode": "lines",
            "line": {"color": f"rgba(120,120,120,{0.45 if n <= 64 else 0.12})", "width": 1.5},
            "name": "a token's path",
            "hoverinfo": "skip",
        }
    ]
    for step in range(steps):
        show_text = step == 0 and n <= max_labels
        data.append(
            {
                "type": kind,
                "x": coords[step, :, 0],
                "y": coords[step, :, 1],
                "mode": "markers+text" if show_text else "markers",
                **({"text": labels} if show_text else {}),
                "textposition": "top center",
                "textfont": {"size": FONT_SIZE - 2},
                "customdata": labels,
                "marker": {"color": colors[step], "size": 10, "line": {"width": 0.5}},
                "name": names[step],
                "hovertemplate": f"%{{customdata}}<br>{names[step]}<br>"
                "PC1 %{x:.2f}, PC2 %{y:.2f}<extra></extra>",
            }
        )
    axis = {"zeroline": False, "showgrid": True, "gridcolor": "#EEEEEE"}
    fig_layout = {
        "xaxis": {"title": {"text": "principal axis 1"}, **axis},
        "yaxis": {"title": {"text": "principal axis 2"}, **axis},
        "legend": {"title": {"text": "hidden state"}},
        "height": 640,
        "font": {"size": FONT_SIZE},
        "margin": {"l": 60, "r": 10, "t": 60, "b": 50},
        "plot_bgcolor": "white",
    }
    title = (
        f"One PCA of all {steps} hidden states: the two axes keep "
        f"{paths.variance_kept:.0%} of their variance"
    )
    return figure(data, titled(fig_layout, title))
