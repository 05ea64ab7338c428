"""Bars and curves: what layouts of heads cost, one head against two, the rank limit's
error, training losses and their spread over seeds, how much of W_Q a head keeps in its
own slice, how big a nudge each sublayer gives the residual stream, and rank collapse.

Heads keep their palette colour; the head layouts compared on page 3 are not heads, so
they get their own styles (colour AND dash). The residual stream is light grey and the
updates dark grey, so head colours keep meaning "this head" only.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence

import numpy as np
import plotly.graph_objects as go

from attention.analysis.pruning import CurveBand, PruningCurve
from attention.experiments.equal_cost import LayoutCost
from attention.experiments.rank_limit import RankLimitResult
from attention.experiments.slicing import own_slice_share
from attention.experiments.two_targets import ONE_HEAD_FLOOR, TwoTargetResult
from attention.figures.grid import (
    MARGIN,
    PAGE_TITLE_CHARS,
    figure,
    framed_layout,
    grid,
    horizontal_line,
    line_label,
    titles_margin,
    vertical_line,
)
from attention.figures.palette import FONT_SIZE, TOKEN_COLOR, head_color, with_alpha
from attention.figures.text import percent, safe_label, unique_labels

# Layouts and variants (not heads): Paul Tol's high-contrast set plus black, each with
# its own dash so the lines stay apart in grey print and for every colour vision.
LAYOUT_STYLES = (
    ("#000000", "solid"),
    ("#004488", "dash"),
    ("#BB5566", "dot"),
    ("#DDAA33", "dashdot"),
)
PART_STYLES = {  # the two parts of a layout's multiply-adds
    "projection": {"color": "#777777", "pattern": {"shape": ""}},
    "score": {"color": "#DDDDDD", "pattern": {"shape": "/", "fgcolor": "#333333"}},
}
SMOOTHING = 25  # steps in the running mean drawn over the raw training loss
STREAM_COLOR = "#BDBDBD"
UPDATE_COLOR = "#333333"
NO_RESIDUAL_COLOR = "#888888"
FLOAT64_FLOOR = 2.2e-16
SUBLAYER_STYLES = (("self-attention", "#0072B2", "solid"), ("feed-forward", "#D55E00", "dash"))


def _note_above(x: float, text: str, **style: object) -> dict:
    """A label above the plot at x (where a vertical line is drawn)."""
    return {"x": x, "y": 1, "yref": "paper", "text": text, "showarrow": False,
            "yanchor": "bottom", **style}  # fmt: skip


# The cost of heads ------------------------------------------------------------------


def cost_bars(
    layouts: Sequence[LayoutCost], n_tokens: int, title_chars: int = PAGE_TITLE_CHARS
) -> go.Figure:
    """Parameters (top) and multiply-adds (projections | scores, below) of each layout,
    one above the other so each gets a half page's width; `title_chars` as in grid.grid."""
    labels = [row.label for row in layouts]
    titles = ["Parameters", f"Multiply-adds, n = {n_tokens}"]
    (top, below), layout = grid(2, 1, titles, v_gap=0.3, title_chars=title_chars)
    bar = {"type": "bar", "y": labels, "orientation": "h"}
    data = [
        top.place(
            {
                **bar,
                "x": [row.cost.params for row in layouts],
                "marker": {"color": PART_STYLES["projection"]["color"]},
                "name": "parameters",
                "showlegend": False,
                "hovertemplate": "%{y}<br>%{x:,} parameters<extra></extra>",
            }
        )
    ]
    parts = {
        "projection": ("W_Q, W_K, W_V, W_O", [row.projection_macs for row in layouts]),
        "score": ("scores q·k and weighted sum (∝ n²)", [row.score_macs for row in layouts]),
    }
    for part, (name, values) in parts.items():
        style = PART_STYLES[part]
        data.append(
            below.place(
                {
                    **bar,
                    "x": values,
                    "name": name,
                    "marker": {"color": style["color"], "pattern": style["pattern"]},
                    "hovertemplate": "%{y}<br>" + name + ": %{x:,}<extra></extra>",
                }
            )
        )
    for panel in (top, below):
        layout[panel.yaxis].update(autorange="reversed", type="category")
    margin = titles_margin(layout)
    layout.update(barmode="stack", legend={"orientation": "h", "y": -0.2})
    return figure(data, framed_layout(layout, 460, margin))


def cost_by_length_chart(
    table: Mapping[str, Mapping[str, np.ndarray]], lengths: Sequence[int], current: int
) -> go.Figure:
    """Multiply-adds against sequence length (log–log): total (solid markers) and the
    score part alone (open markers), per layout; the sentence's length marked."""
    data = []
    for (label, parts), (color, dash) in zip(table.items(), LAYOUT_STYLES, strict=False):
        total = parts["projection"] + parts["score"]
        for values, part, symbol in (
            (total, "total", "circle"),
            (parts["score"], "scores", "circle-open"),
        ):
            data.append(
                {
                    "type": "scatter",
                    "x": list(lengths),
                    "y": values,
                    "mode": "lines+markers",
                    "name": f"{label}: {part}",
                    "line": {"color": color, "dash": dash, "width": 3 if part == "total" else 2},
                    "marker": {"symbol": symbol, "size": 8},
                    "hovertemplate": f"{label}<br>n = %{{x}}<br>{part}: %{{y:,}}<extra></extra>",
                }
            )
    # On a log axis a shape takes the data value, an annotation its log10.
    layout = {
        "shapes": [vertical_line(current, {"color": "#888888", "dash": "dot"})],
        "annotations": [_note_above(math.log10(current), f"your sentence: n = {current}")],
        "xaxis": {"type": "log", "title": {"text": "sequence length n (tokens)"}},
        "yaxis": {"type": "log", "title": {"text": "multiply-adds"}, "exponentformat": "power"},
    }
    return figure(data, framed_layout(layout, 480, legend={"font": {"size": FONT_SIZE - 2}}))


# One head against two ---------------------------------------------------------------


def two_target_figure(tokens: Sequence[str], result: TwoTargetResult) -> go.Figure:
    """The query's weights over the tokens: one head (left), two heads (right); the two
    targets' columns shaded."""
    labels = unique_labels(list(tokens))
    query = labels[result.query]
    one, two = result.one_head_fetch, result.two_heads_fetch
    titles = [
        f"One head: {percent(one[0])} + {percent(one[1])}",
        f"Two heads: {percent(two[0])} and {percent(two[1])}",
    ]
    panels, layout = grid(2, 2, titles, h_gap=0.06)
    # The single head is another model, not head 1: it keeps the layouts' black.
    series = [(panels[0], LAYOUT_STYLES[0][0], result.one_head, "one head")]
    series += [
        (panels[1], head_color(h), result.two_heads[h], f"head {h + 1} of two") for h in range(2)
    ]
    data = [
        panel.place(
            {
                "type": "bar",
                "x": labels,
                "y": weights,
                "name": name,
                "marker": {"color": color},
                "customdata": [query] * len(labels),
                "hovertemplate": "query %{customdata} → key %{x}<br>weight %{y:.3f}"
                f"<extra>{name}</extra>",
            }
        )
        for panel, color, weights, name in series
    ]
    shapes = [
        {
            "type": "rect",
            "x0": target - 0.5,
            "x1": target + 0.5,
            "xref": panel.x,
            "y0": 0,
            "y1": 1,
            "yref": f"{panel.y} domain",
            "fillcolor": "#999999",
            "opacity": 0.18,
            "line": {"width": 0},
            "layer": "below",
        }
        for panel in panels
        for target in result.targets
    ]
    for panel in panels:
        layout[panel.xaxis].update(
            type="category", tickangle=-45, title={"text": "key token (targets shaded)"}
        )
    layout[panels[0].yaxis].update(range=[0, 1.05], title={"text": "attention weight"})
    layout[panels[1].yaxis].update(matches="y", showticklabels=False)
    layout.update(shapes=shapes, barmode="group", legend={"orientation": "h", "y": -0.45})
    return figure(data, framed_layout(layout, 440))


def two_target_curves(result: TwoTargetResult) -> go.Figure:
    """The objective during the fit, with the floor one head can never go below."""
    steps = np.arange(1, len(result.one_head_loss) + 1)
    data = [
        {
            "type": "scatter",
            "x": steps,
            "y": loss,
            "name": name,
            "mode": "lines",
            "line": {"color": color, "dash": dash, "width": 3},
            "hovertemplate": f"{name}<br>step %{{x}}<br>loss %{{y:.4f}}<extra></extra>",
        }
        for loss, name, (color, dash) in (
            (result.one_head_loss, "one head", LAYOUT_STYLES[0]),
            (result.two_heads_loss, "two heads", LAYOUT_STYLES[1]),
        )
    ]
    # The first steps can start far above the floor; keep the floor and the end in view.
    top = max(3.0, 1.2 * max(result.one_head_loss[-1], result.two_heads_loss[-1]))
    layout = {
        "shapes": [horizontal_line(ONE_HEAD_FLOOR, {"dash": "dash", "color": "#444444"})],
        "annotations": [line_label(ONE_HEAD_FLOOR, "log 2: one head's floor")],
        "xaxis": {"title": {"text": "optimisation step"}},
        "yaxis": {"title": {"text": "−½ (log w_a + log w_b)"}, "range": [0, top]},
    }
    return figure(data, framed_layout(layout, 360, legend={"orientation": "h", "y": -0.3}))


# The rank limit ---------------------------------------------------------------------


def rank_error_chart(result: RankLimitResult, marks: Mapping[str, int]) -> go.Figure:
    """Best error against d_head, with vertical lines at the `marks` (label → d_head)."""
    data = [
        {
            "type": "scatter",
            "x": result.d_heads,
            "y": result.error,
            "mode": "lines+markers",
            "line": {"color": "#000000", "width": 3},
            "marker": {"size": 9},
            "customdata": result.misplaced * 100,
            "name": "best fit",
            "hovertemplate": "d_head = %{x}<br>KL error %{y:.4f} nats<br>"
            "misplaced attention %{customdata:.1f} %<extra></extra>",
        }
    ]
    shapes, notes = [], []
    for (label, d_head), (color, dash) in zip(marks.items(), LAYOUT_STYLES[1:], strict=False):
        if 1 <= d_head <= result.d_heads[-1]:
            shapes.append(vertical_line(d_head, {"color": color, "dash": dash, "width": 2}))
            notes.append(_note_above(d_head, label, font={"color": color}))
    layout = {
        "shapes": shapes,
        "annotations": notes,
        "xaxis": {
            "title": {"text": "d_head"},
            **({"dtick": 1} if len(result.d_heads) <= 20 else {}),
        },
        "yaxis": {"title": {"text": "error: mean KL(target ‖ fit), nats"}, "rangemode": "tozero"},
    }
    return figure(data, framed_layout(layout, 400, showlegend=False))


# Training ---------------------------------------------------------------------------


def loss_curves(curves: Mapping[str, np.ndarray], steps: int) -> go.Figure:
    """Training loss per variant (label → losses so far): raw per-batch loss faint, its
    running mean over SMOOTHING steps bold; the x axis spans all `steps`."""
    data = []
    for (label, losses), (color, dash) in zip(curves.items(), LAYOUT_STYLES, strict=False):
        x = np.arange(1, len(losses) + 1)
        data.append(
            {
                "type": "scatter",
                "x": x,
                "y": np.round(losses, 4),
                "mode": "lines",
                "line": {"color": color, "width": 1},
                "opacity": 0.25,
                "showlegend": False,
                "hoverinfo": "skip",
            }
        )
        data.append(
            {
                "type": "scatter",
                "x": x,
                "y": np.round(_running_mean(losses, SMOOTHING), 4),
                "mode": "lines",
                "name": label,
                "line": {"color": color, "dash": dash, "width": 3},
                "hovertemplate": f"{label}<br>step %{{x}}<br>loss %{{y:.3f}}<extra></extra>",
            }
        )
    layout = {
        "xaxis": {"title": {"text": "training step"}, "range": [0, steps]},
        "yaxis": {
            "title": {"text": f"loss (nats, mean of {SMOOTHING} steps)"},
            "rangemode": "tozero",
        },
    }
    return figure(data, framed_layout(layout, 420, legend={"orientation": "h", "y": -0.25}))


def _running_mean(values: np.ndarray, window: int) -> np.ndarray:
    """Mean of the last `window` values at each step (fewer at the start)."""
    sums = np.cumsum(np.insert(np.asarray(values, dtype=np.float64), 0, 0.0))
    counts = np.minimum(np.arange(1, len(values) + 1), window)
    ends = np.arange(1, len(values) + 1)
    return (sums[ends] - sums[ends - counts]) / counts


def seed_spread(
    summary: Mapping[str, Mapping[str, np.ndarray]],
    labels: Mapping[str, str],
    seeds: Sequence[int],
    n_symbols: int,
) -> go.Figure:
    """Every seed's final accuracy as a dot per variant, so the spread is visible; with
    the chance level 1/n_symbols² and 1/n_symbols (one answer known, one guessed)."""
    data = [
        {
            "type": "scatter",
            "x": values["accuracy"] * 100,
            "y": [labels[key]] * len(seeds),
            "mode": "markers",
            "name": labels[key],
            "marker": {
                "color": color,
                "size": 14,
                "opacity": 0.75,
                "line": {"width": 1, "color": "white"},
            },
            "customdata": list(seeds),
            "hovertemplate": "%{y}<br>seed %{customdata}: %{x:.1f} %<extra></extra>",
            "showlegend": False,
        }
        for (key, values), (color, _) in zip(summary.items(), LAYOUT_STYLES, strict=False)
    ]
    chance = {"chance": 100 / n_symbols**2, "one answer right": 100 / n_symbols}
    marks = list(zip(chance.items(), ("dot", "dash"), strict=True))
    layout = {
        "shapes": [vertical_line(x, {"color": "#888888", "dash": dash}) for (_, x), dash in marks],
        "annotations": [  # one label per line, stacked so that close lines never collide
            _note_above(
                x, f"{label}: {x:.1f} %", xanchor="left", yshift=18 * row, font={"color": "#555555"}
            )
            for row, ((label, x), _) in enumerate(marks)
        ],
        "xaxis": {
            "title": {"text": "accuracy on held-out sequences (%), one dot per seed"},
            "range": [-2, 102],
        },
        "yaxis": {"type": "category", "autorange": "reversed"},
    }
    return figure(data, framed_layout(layout, 340, margin={"t": 58}))


# Slices of the embedding ------------------------------------------------------------


def slice_share_chart(weights: Mapping[str, np.ndarray]) -> go.Figure:
    """Per head, for each named W_Q (h, d_model, d_head): the share of its squared weights
    in its own slice's rows. Slicing would make it 100 %; reading every coordinate evenly
    gives 1/h."""
    panels, layout = grid(len(weights), len(weights), list(weights), h_gap=0.2 / len(weights))
    data, shapes = [], []
    for panel, w_q in zip(panels, weights.values(), strict=True):
        share = own_slice_share(w_q) * 100
        n_heads = len(share)
        data.append(
            panel.place(
                {
                    "type": "bar",
                    "x": [f"head {h + 1}" for h in range(n_heads)],
                    "y": share,
                    "marker": {"color": [head_color(h) for h in range(n_heads)]},
                    "hovertemplate": "%{x}: %{y:.1f} % of its weight in its own slice"
                    "<extra></extra>",
                    "showlegend": False,
                }
            )
        )
        even = 100 / n_heads
        for y, dash, text in ((even, "dash", f"1/h = {even:.0f} %: reads evenly"),
                              (100, "dot", "100 %: slicing")):  # fmt: skip
            shapes.append(horizontal_line(y, {"dash": dash, "color": "#444444"}, panel))
            layout["annotations"].append(line_label(y, text, panel))
        layout[panel.xaxis]["type"] = "category"
        if panel.index:  # every panel shares the first one's percentage axis
            layout[panel.yaxis].update(matches="y", showticklabels=False)
    layout["yaxis"].update(title={"text": "% of W_Q weight in own slice"}, range=[0, 110])
    layout["shapes"] = shapes
    return figure(data, framed_layout(layout, 360))


def neighbour_order_chart(rank_corr: np.ndarray, focus_label: str) -> go.Figure:
    """Per head, the rank correlation between the focus token's neighbours by cosine in
    the original space and the keys its query scores highest in the head (full
    dimensions): 1 = the head keeps the original order."""
    rho = np.asarray(rank_corr, dtype=np.float64)
    heads = len(rho)
    panels, layout = grid(1, 1)
    data = [
        {
            "type": "bar",
            "x": [f"head {h + 1}" for h in range(heads)],
            "y": np.round(np.nan_to_num(rho, nan=0.0), 4),
            "customdata": [f"{r:+.2f}" if np.isfinite(r) else "n/a" for r in rho],
            "marker": {"color": [head_color(h) for h in range(heads)]},
            "hovertemplate": "%{x}: ρ = %{customdata}<extra></extra>",
            "showlegend": False,
        }
    ]
    layout["xaxis"]["type"] = "category"
    layout["yaxis"].update(
        range=[-1.05, 1.1],
        title={"text": f"ρ(original order, head's order) for “{safe_label(focus_label)}”"},
    )
    layout["shapes"] = [horizontal_line(1.0, {"dash": "dot", "color": "#444444"}, panels[0])]
    layout["annotations"] = [line_label(1.0, "1: the original order kept", panels[0])]
    return figure(data, framed_layout(layout, 380))


# The residual stream ----------------------------------------------------------------


def stream_update_figure(
    tokens: list[str],
    sublayers: list[str],
    stream_norms: np.ndarray,
    update_norms: np.ndarray,
    ratios: np.ndarray,
) -> go.Figure:
    """One row per sublayer: for every token, ‖residual stream‖ entering the sublayer
    (light) beside ‖update‖ the sublayer adds to it (dark); the hover gives `ratios`,
    ‖update‖ / ‖stream‖, all three shaped (sublayers, n)."""
    labels = unique_labels(tokens)
    panels, layout = grid(len(sublayers), 1, titles=list(sublayers))
    data = []
    for panel, name, stream, update, ratio in zip(
        panels, sublayers, stream_norms, update_norms, ratios, strict=True
    ):
        custom = np.stack([stream, update, ratio], axis=1).round(4)
        hover = (
            f"token: %{{x}}<br>{name}<br>‖stream‖: %{{customdata[0]:.3f}}"
            "<br>‖update‖: %{customdata[1]:.3f}<br>‖update‖ / ‖stream‖: %{customdata[2]:.3f}"
            "<extra></extra>"
        )
        for values, label, color in (
            (stream, "‖stream‖", STREAM_COLOR),  # short: one legend row in a column
            (update, "‖update‖", UPDATE_COLOR),  # at 1024 px too
        ):
            data.append(
                panel.place(
                    {
                        "type": "bar",
                        "x": labels,
                        "y": np.round(values, 4),
                        "name": label,
                        "marker": {"color": color},
                        "customdata": custom,
                        "hovertemplate": hover,
                        "legendgroup": label,
                        "showlegend": panel.index == 0,
                    }
                )
            )
        layout[panel.xaxis].update(
            type="category",
            tickangle=-45,
            showticklabels=panel.bottom,
            **({"title": {"text": "token"}} if panel.bottom else {}),
        )
        layout[panel.yaxis].update(title={"text": "norm"}, rangemode="tozero")
    layout.update(
        barmode="group",
        bargap=0.25,
        height=190 * len(sublayers) + 170,
        # Two rows deep where the column is narrow (1024 px): one row needs 80.
        legend={"orientation": "h", "x": 0, "y": 0.99, "yanchor": "top", "yref": "container"},
        margin={"l": 10, "r": 10, "t": 100, "b": 10},
        font={"size": FONT_SIZE},
    )
    return figure(data, layout)


def rank_collapse_figure(
    curves: list[tuple[str, bool, bool, np.ndarray]], picked_depth: int | None = None
) -> go.Figure:
    """Distance from rank 1 against depth, log scale; `curves` holds (label, residual,
    feed_forward, distances per depth starting at depth 0). With the residual: dark,
    solid; without: grey, dashed; circles mark the runs with a feed-forward. Exact
    values in the hover; values below float64's rounding are drawn just under it."""
    data = []
    for label, residual, feed_forward, distances in curves:
        distances = np.asarray(distances, dtype=np.float64)
        data.append(
            {
                "type": "scatter",
                "x": np.arange(len(distances)),
                "y": np.maximum(distances, FLOAT64_FLOOR / 10),  # an exact 0 has no log
                "customdata": distances,
                "name": label,
                "mode": "lines+markers" if feed_forward else "lines",
                "line": {
                    "color": UPDATE_COLOR if residual else NO_RESIDUAL_COLOR,
                    "dash": "solid" if residual else "dash",
                    "width": 4 if feed_forward else 3,
                },
                "marker": {"size": 7},
                "hovertemplate": f"{label}<br>depth %{{x}}<br>distance %{{customdata:.2e}}"
                "<extra></extra>",
            }
        )
    floor = {"color": NO_RESIDUAL_COLOR, "width": 1, "dash": "dot"}
    shapes = [
        {"type": "line", "xref": "paper", "x0": 0, "x1": 1, "y0": FLOAT64_FLOOR,
         "y1": FLOAT64_FLOOR, "line": floor},
    ]  # fmt: skip
    if picked_depth is not None:
        shapes.append(
            {"type": "line", "yref": "paper", "y0": 0, "y1": 1, "x0": picked_depth,
             "x1": picked_depth, "line": {"color": TOKEN_COLOR, "width": 1}}
        )  # fmt: skip
    layout = {
        "shapes": shapes,
        "annotations": [
            {  # annotations on a log axis take log10 of the value
                "x": 1,
                "xref": "paper",
                "y": math.log10(FLOAT64_FLOOR),
                "text": "float64 rounding:<br>identical tokens",  # fits half of 1024 px
                "showarrow": False,
                "xanchor": "right",
                "yanchor": "top",
                "font": {"color": NO_RESIDUAL_COLOR},
            }
        ],
        "xaxis": {"title": {"text": "depth (layers stacked)"}, "tick0": 0},  # Plotly's step
        "yaxis": {
            "title": {"text": "distance from rank 1, ‖X − 1x̄ᵀ‖ / ‖X‖"},
            "type": "log",
            "exponentformat": "power",
            "range": [math.log10(FLOAT64_FLOOR) - 1.2, 0.3],
        },
        "legend": {"orientation": "h", "y": -0.22, "x": 0},
        "height": 520,
        "margin": {**MARGIN, "t": 30},
        "font": {"size": FONT_SIZE},
    }
    return figure(data, layout)


def layer_ratio_figure(ratios: np.ndarray) -> go.Figure:
    """A trained model's nudges layer by layer: for each sublayer, the median over
    tokens of ‖update‖ / ‖stream‖ (line) and the band holding the middle 80 % of tokens
    (a few special tokens get far larger nudges and would flatten the rest). `ratios`
    is (layers, 2, n): sublayer 0 attention, 1 feed-forward."""
    layers = np.arange(1, ratios.shape[0] + 1)
    data = []
    for index, (name, color, dash) in enumerate(SUBLAYER_STYLES):
        per_token = ratios[:, index, :]
        low, high = np.percentile(per_token, [10, 90], axis=1)
        data.append(
            {
                "type": "scatter",
                "x": np.concatenate([layers, layers[::-1]]),
                "y": np.concatenate([high, low[::-1]]).round(4),
                "fill": "toself",
                "mode": "lines",
                "fillcolor": with_alpha(color, 0.18),
                "line": {"width": 0},
                "hoverinfo": "skip",
                "name": f"{name}: middle 80 % of tokens",
                "legendgroup": name,
            }
        )
        data.append(
            {
                "type": "scatter",
                "x": layers,
                "y": np.median(per_token, axis=1).round(4),
                "mode": "lines+markers",
                "line": {"color": color, "dash": dash, "width": 3},
                "name": f"{name}: median token",
                "legendgroup": name,
                "hovertemplate": f"layer %{{x}} · {name}<br>median ‖update‖ / ‖stream‖: "
                "%{y:.2f}<extra></extra>",
            }
        )
    layout = {
        "height": 420,
        "font": {"size": FONT_SIZE},
        "plot_bgcolor": "white",
        "xaxis": {"title": {"text": "layer"}, "tickvals": layers, "showgrid": False},
        "yaxis": {
            "title": {"text": "‖update‖ / ‖stream‖"},
            "rangemode": "tozero",
            "gridcolor": "#EEEEEE",
        },
        # On top, two rows deep: four long entries take two rows in a 535- to 951-px
        # column (1024- to 1440-px windows).
        "legend": {"orientation": "h", "x": 0, "y": 1, "yanchor": "top", "yref": "container"},
        "margin": {**MARGIN, "t": 70},
    }
    return figure(data, layout)


# Pruning heads ----------------------------------------------------------------------

PRUNED_COLOR = "#000000"  # the importance order
RANDOM_COLOR = "#888888"  # the random orders' band and median


def pruning_figure(
    curve: PruningCurve, band: CurveBand, orders: int, removable: int, drop: float
) -> go.Figure:
    """Accuracy (%) against heads switched off: least important first (black) beside the
    band and median of `orders` random orders (grey); a dotted line `drop` below the
    start and the last point before the importance curve falls to it, marked."""
    removed = curve.removed
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
