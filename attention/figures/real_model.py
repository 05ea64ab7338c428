"""Figures of a real model's heads: all layers × heads as one grid of heatmaps, one head
large, and the tokens' path through the hidden states in one shared PCA.

The grid is ONE figure of go.Heatmap traces on one 0–1 colour axis. Long sentences are
pooled to at most `max_cells` × `max_cells` blocks per map: a cell is the share of
attention a block of queries gives a block of keys (mean over the block's queries of
the sum over its keys), so pooled rows still sum to 1.
"""

from __future__ import annotations

import numpy as np
import plotly.graph_objects as go
from plotly.colors import sample_colorscale

from attention.figures.heatmap import MAX_GRID_CELLS, attention_grid, block_labels
from attention.figures.palette import FONT_SIZE, WEIGHT_SCALE, head_color
from attention.figures.text import safe_label
from attention.pooling import pool_attention
from attention.projection import pca_2d

ROLE_SCALE = "Oranges"  # sequential, distinct from the blue weight scale
LAYER_SCALE = "Viridis"  # colour-blind-safe order from embeddings (light) to last layer
GRID_CELL_PX = 92
MAX_NAMED_TOKENS = 40  # the layer-path figure writes token names up to this many


def head_grid_figure(
    attentions: np.ndarray,
    tokens: list[str],
    selected: tuple[int, int] | None = None,
    role: str | None = None,
    role_values: np.ndarray | None = None,
    max_cells: int = MAX_GRID_CELLS,
) -> go.Figure:
    """All (layers, heads, n, n) maps as one grid: layer rows, head columns, shared 0–1
    colour scale. `selected` (0-based layer, head) gets a frame in its head's colour;
    `role_values` (layers, heads) frames every map in a colour scale running from 0 to
    the largest head's value and writes the value above the map.

    The subplot axes are laid out here rather than by make_subplots, which takes over a
    second for 72 panels; this takes about 0.1 s.
    """
    layers, heads = attentions.shape[:2]
    pooled = pool_attention(attentions, max_cells)
    labels = block_labels(tokens, max_cells)
    hover = (
        "layer %{meta[0]} · head %{meta[1]}<br>query: %{y}<br>key: %{x}"
        "<br>weight: %{z:.3f}<extra></extra>"
    )
    traces, layout = [], {}
    for layer in range(layers):
        for head in range(heads):
            x_ref, y_ref = _axis_names(layer, head, heads)
            traces.append(
                go.Heatmap(
                    z=pooled[layer, head],
                    x=labels,
                    y=labels,
                    xaxis=x_ref,
                    yaxis=y_ref,
                    coloraxis="coloraxis",
                    meta=[layer + 1, head + 1],
                    hovertemplate=hover,
                    name=f"layer {layer + 1} head {head + 1}",
                )
            )
            x_domain, y_domain = _panel_domain(layer, head, layers, heads)
            axis = {
                "type": "category",
                "showticklabels": False,
                "showgrid": False,
                "showline": True,
                "mirror": True,
                "linecolor": "#B0B0B0",
            }
            layout[x_ref.replace("x", "xaxis")] = {**axis, "domain": x_domain, "anchor": y_ref}
            layout[y_ref.replace("y", "yaxis")] = {
                **axis,
                "domain": y_domain,
                "anchor": x_ref,
                "autorange": "reversed",
                "title": (
                    {"text": f"layer {layer + 1}", "standoff": 4, "font": {"color": "#1A1A1A"}}
                    if head == 0
                    else None
                ),
            }
    layout[_axis_names(layers - 1, 0, heads)[0].replace("x", "xaxis")]["title"] = {
        "text": "keys →",
        "standoff": 4,
    }
    fig = go.Figure(data=traces, layout=layout)
    fig.update_layout(
        annotations=[
            {
                "text": f"head {head + 1}",
                "xref": "paper",
                "yref": "paper",
                "x": float(np.mean(_panel_domain(0, head, layers, heads)[0])),
                "y": 1.0,
                "yanchor": "bottom",
                "yshift": 0 if role_values is None else _ROLE_TEXT_PX,
                "showarrow": False,
                "font": {"color": head_color(head), "size": FONT_SIZE},
            }
            for head in range(heads)
        ],
        coloraxis={
            "colorscale": WEIGHT_SCALE,
            "cmin": 0.0,
            "cmax": 1.0,
            "colorbar": {"title": {"text": "weight"}, "thickness": 14, "len": 0.6},
        },
        height=layers * GRID_CELL_PX + 110,
        margin={"l": 70, "r": 10, "t": 40 + (0 if role_values is None else _ROLE_TEXT_PX), "b": 40},
        font={"size": FONT_SIZE},
        plot_bgcolor="white",
    )
    if role_values is not None:
        _mark_role(fig, role or "role", np.asarray(role_values))
    if selected is not None:
        fig.add_shape(_frame(*selected, heads, head_color(selected[1]), width=5))
    return fig


_H_GAP, _V_GAP = 0.012, 0.04
_ROLE_TEXT_PX = 18  # room above the top row for the role values


def _panel_domain(layer: int, head: int, layers: int, heads: int) -> tuple[list, list]:
    """Paper coordinates of one panel, layer 0 at the top."""
    width = (1 - (heads - 1) * _H_GAP) / heads
    height = (1 - (layers - 1) * _V_GAP) / layers
    x0 = head * (width + _H_GAP)
    y1 = 1 - layer * (height + _V_GAP)
    return [_unit(x0), _unit(x0 + width)], [_unit(y1 - height), _unit(y1)]


def _unit(value: float) -> float:
    """Plotly refuses domains a rounding error outside 0..1."""
    return min(1.0, max(0.0, round(value, 9)))


def _axis_names(layer: int, head: int, heads: int) -> tuple[str, str]:
    index = layer * heads + head + 1
    suffix = "" if index == 1 else str(index)
    return f"x{suffix}", f"y{suffix}"


def _frame(layer: int, head: int, heads: int, color: str, width: float) -> dict:
    x_ref, y_ref = _axis_names(layer, head, heads)
    return {
        "type": "rect",
        "xref": f"{x_ref} domain",
        "yref": f"{y_ref} domain",
        "x0": -0.04,
        "x1": 1.04,
        "y0": -0.04,
        "y1": 1.04,
        "line": {"color": color, "width": width},
    }


def _mark_role(fig: go.Figure, role: str, values: np.ndarray) -> None:
    """Frame each map in the role's colour scale and write its value above the map;
    an invisible marker carries the role's colour bar (the legend of the frames)."""
    heads = values.shape[1]
    top = float(values.max()) if values.max() > 0 else 1.0
    colors = sample_colorscale(ROLE_SCALE, list(np.clip(values.ravel() / top, 0, 1)))
    shapes, notes = [], []
    for index, (value, color) in enumerate(zip(values.ravel(), colors, strict=True)):
        layer, head = divmod(index, heads)
        shapes.append(_frame(layer, head, heads, color, width=5))
        x_ref, y_ref = _axis_names(layer, head, heads)
        notes.append(
            {
                "text": f"{value:.2f}",
                "xref": f"{x_ref} domain",
                "yref": f"{y_ref} domain",
                "x": 0.5,
                "y": 1.0,
                "yanchor": "bottom",
                "showarrow": False,
                "font": {"size": FONT_SIZE - 3, "color": "#1A1A1A"},
            }
        )
    fig.add_trace(
        go.Scatter(
            x=[None],
            y=[None],
            mode="markers",
            marker={"color": [0.0], "coloraxis": "coloraxis2"},
            showlegend=False,
            hoverinfo="skip",
        )
    )
    fig.update_layout(
        shapes=shapes,
        annotations=[*fig.layout.annotations, *notes],
        coloraxis2={
            "colorscale": ROLE_SCALE,
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
        },
    )


def head_figure(
    weights: np.ndarray, tokens: list[str], layer: int, head: int, stretch: bool = False
) -> go.Figure:
    """One head's (n, n) map at full resolution (0-based layer and head), its title in
    the head's colour. `stretch` runs the colour scale up to this head's largest weight
    instead of 1, for long texts whose weights are spread thin."""
    n = len(tokens)
    fig = attention_grid(
        np.asarray(weights)[None],
        tokens,
        titles=[f"layer {layer + 1} · head {head + 1}"],
        columns=1,
        panel_px=int(np.clip(18 * n, 480, 740)),
        head_colors=False,
        max_cells=n,
    )
    fig.layout.annotations[0].font = {"color": head_color(head), "size": FONT_SIZE + 4}
    if stretch:
        top = float(np.max(weights))
        fig.update_layout(
            coloraxis_cmax=top, coloraxis_colorbar_title_text=f"weight (0 to {top:.2f})"
        )
    if n > MAX_GRID_CELLS:
        fig.update_xaxes(showticklabels=False)
        fig.update_yaxes(showticklabels=False)
        fig.update_xaxes(title_text="key (hover for the token)")
        fig.update_yaxes(title_text="query (hover for the token)")
    return fig


def layer_path_figure(
    hidden_states: np.ndarray, tokens: list[str], max_labels: int = MAX_NAMED_TOKENS
) -> go.Figure:
    """Each token's path through the (layers + 1, n, d) hidden states in ONE PCA fitted
    on all of them, so every layer's move is drawn on the same axes. Tokens are named at
    their first point when there are at most `max_labels` of them; past MAX_GRID_CELLS
    tokens the points are drawn with WebGL (a third faster at 512 tokens)."""
    steps, n, d = hidden_states.shape
    scatter = go.Scatter if n <= MAX_GRID_CELLS else go.Scattergl
    layout = pca_2d(hidden_states.reshape(steps * n, d))
    coords = layout.coords.reshape(steps, n, 2)
    labels = [safe_label(t) for t in tokens]
    names = ["embeddings"] + [f"after layer {i}" for i in range(1, steps)]
    colors = sample_colorscale(LAYER_SCALE, list(np.linspace(0.0, 0.85, steps)))
    paths = np.full((n, steps + 1, 2), np.nan)
    paths[:, :steps] = coords.transpose(1, 0, 2)
    fig = go.Figure(
        scatter(
            x=paths[..., 0].ravel(),
            y=paths[..., 1].ravel(),
            mode="lines",
            line={"color": f"rgba(120,120,120,{0.45 if n <= 64 else 0.12})", "width": 1.5},
            name="a token's path",
            hoverinfo="skip",
        )
    )
    for step in range(steps):
        show_text = step == 0 and n <= max_labels
        fig.add_trace(
            scatter(
                x=coords[step, :, 0],
                y=coords[step, :, 1],
                mode="markers+text" if show_text else "markers",
                text=labels if show_text else None,
                textposition="top center",
                textfont={"size": FONT_SIZE - 2},
                customdata=labels,
                marker={"color": colors[step], "size": 10, "line": {"width": 0.5}},
                name=names[step],
                hovertemplate=f"%{{customdata}}<br>{names[step]}<br>"
                "PC1 %{x:.2f}, PC2 %{y:.2f}<extra></extra>",
            )
        )
    fig.update_layout(
        title={
            "text": f"One PCA of all {steps} hidden states: the two axes keep "
            f"{layout.variance_kept:.0%} of their variance",
            "font": {"size": FONT_SIZE + 2},
        },
        xaxis={"title": {"text": "principal axis 1"}, "zeroline": False},
        yaxis={"title": {"text": "principal axis 2"}, "zeroline": False},
        legend={"title": {"text": "hidden state"}},
        height=620,
        font={"size": FONT_SIZE},
        margin={"l": 60, "r": 10, "t": 60, "b": 50},
        plot_bgcolor="white",
    )
    fig.update_xaxes(showgrid=True, gridcolor="#EEEEEE")
    fig.update_yaxes(showgrid=True, gridcolor="#EEEEEE")
    return fig
