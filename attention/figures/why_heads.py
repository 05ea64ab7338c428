"""Figures and tables of the "Why several heads?" page: pure functions, experiment results
in, go.Figure (or table rows) out. Heads keep their palette colour; the head layouts
compared in §1 and §4 are not heads, so they get their own styles (colour AND dash)."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence

import numpy as np
import plotly.graph_objects as go
from plotly.subplots import make_subplots

from attention.experiments.cost import LayoutCost
from attention.experiments.rank_limit import RankLimitResult
from attention.experiments.slicing import own_slice_share, sliced, stacked
from attention.experiments.training.train import Comparison
from attention.experiments.two_targets import ONE_HEAD_FLOOR, TwoTargetResult
from attention.figures.heatmap import attention_grid
from attention.figures.palette import FONT_SIZE, WEIGHT_AXIS, head_color
from attention.figures.text import unique_labels

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
DIVERGING = "RdBu"  # weights: red negative, blue positive, white zero


def _layout(fig: go.Figure, height: int, **extra) -> go.Figure:
    fig.update_layout(
        height=height,
        font={"size": FONT_SIZE},
        margin={"l": 10, "r": 10, "t": 60, "b": 10},
        plot_bgcolor="white",
        **extra,
    )
    axes = {"showline": True, "linecolor": "#888888", "gridcolor": "#EEEEEE"}
    ticks = {"size": FONT_SIZE - 2}
    fig.update_xaxes(tickfont=ticks, title_font={"size": FONT_SIZE}, **axes)
    fig.update_yaxes(tickfont=ticks, title_font={"size": FONT_SIZE}, **axes)
    return fig


# §1 ---------------------------------------------------------------------------------


def cost_table(layouts: Sequence[LayoutCost]) -> list[dict[str, object]]:
    """One row per layout: how many distributions each query gets and what it costs
    (MACs = multiply-adds)."""
    return [
        {
            "layout": row.label,
            "distributions per query": row.distributions_per_query,
            "parameters": row.cost.params,
            "MACs: projections": row.projection_macs,
            "MACs: scores (∝ n²)": row.score_macs,
            "softmax exps": row.cost.softmax_exps,
            "MACs: total": row.cost.macs,
        }
        for row in layouts
    ]


def cost_bars(layouts: Sequence[LayoutCost], n_tokens: int) -> go.Figure:
    """Parameters and multiply-adds (projections | scores) of each layout, side by side."""
    labels = [row.label for row in layouts]
    fig = make_subplots(
        rows=1,
        cols=2,
        subplot_titles=("Parameters", f"Multiply-adds, n = {n_tokens}"),
        horizontal_spacing=0.22,
    )
    fig.add_trace(
        go.Bar(
            y=labels,
            x=[row.cost.params for row in layouts],
            orientation="h",
            marker={"color": PART_STYLES["projection"]["color"]},
            name="parameters",
            showlegend=False,
            hovertemplate="%{y}<br>%{x:,} parameters<extra></extra>",
        ),
        row=1,
        col=1,
    )
    parts = {
        "projection": ("W_Q, W_K, W_V, W_O", [row.projection_macs for row in layouts]),
        "score": ("scores q·k and weighted sum (∝ n²)", [row.score_macs for row in layouts]),
    }
    for part, (name, values) in parts.items():
        style = PART_STYLES[part]
        fig.add_trace(
            go.Bar(
                y=labels,
                x=values,
                orientation="h",
                name=name,
                marker={"color": style["color"], "pattern": style["pattern"]},
                hovertemplate="%{y}<br>" + name + ": %{x:,}<extra></extra>",
            ),
            row=1,
            col=2,
        )
    fig.update_layout(barmode="stack", legend={"orientation": "h", "y": -0.45})
    fig.update_yaxes(autorange="reversed", type="category")
    fig.update_yaxes(showticklabels=False, row=1, col=2)
    fig.update_xaxes(title_text="parameters", row=1, col=1)
    fig.update_xaxes(title_text="multiply-adds", row=1, col=2)
    return _layout(fig, 380)


def cost_by_length_chart(
    table: Mapping[str, Mapping[str, np.ndarray]], lengths: Sequence[int], current: int
) -> go.Figure:
    """Multiply-adds against sequence length (log–log): total (solid markers) and the
    score part alone (open markers), per layout; the sentence's length marked."""
    fig = go.Figure()
    for (label, parts), (color, dash) in zip(table.items(), LAYOUT_STYLES, strict=False):
        total = parts["projection"] + parts["score"]
        for values, part, symbol in (
            (total, "total", "circle"),
            (parts["score"], "scores", "circle-open"),
        ):
            fig.add_trace(
                go.Scatter(
                    x=list(lengths),
                    y=values,
                    mode="lines+markers",
                    name=f"{label}: {part}",
                    line={"color": color, "dash": dash, "width": 3 if part == "total" else 2},
                    marker={"symbol": symbol, "size": 8},
                    hovertemplate=f"{label}<br>n = %{{x}}<br>{part}: %{{y:,}}<extra></extra>",
                )
            )
    # Shapes and annotations on a log axis take log10 coordinates.
    fig.add_vline(x=math.log10(current), line={"color": "#888888", "dash": "dot"})
    fig.add_annotation(
        x=math.log10(current),
        y=1,
        yref="paper",
        text=f"your sentence: n = {current}",
        showarrow=False,
        yanchor="bottom",
    )
    fig.update_xaxes(type="log", title_text="sequence length n (tokens)")
    fig.update_yaxes(type="log", title_text="multiply-adds", exponentformat="power")
    return _layout(fig, 480, legend={"font": {"size": FONT_SIZE - 2}})


# §2 ---------------------------------------------------------------------------------


def two_target_figure(tokens: Sequence[str], result: TwoTargetResult) -> go.Figure:
    """The query's weights over the tokens: one head (left), two heads (right); the two
    targets' columns shaded."""
    labels = unique_labels(list(tokens))
    query = labels[result.query]
    fig = make_subplots(
        rows=1,
        cols=2,
        shared_yaxes=True,
        horizontal_spacing=0.06,
        subplot_titles=(
            f"One head: {_pct(result.one_head_fetch[0])} + {_pct(result.one_head_fetch[1])}",
            f"Two heads: {_pct(result.two_heads_fetch[0])} and {_pct(result.two_heads_fetch[1])}",
        ),
    )
    series = [(1, 0, result.one_head, "one head")]
    series += [(2, h, result.two_heads[h], f"head {h + 1} of two") for h in range(2)]
    for col, head, weights, name in series:
        fig.add_trace(
            go.Bar(
                x=labels,
                y=weights,
                name=name,
                marker={"color": head_color(head)},
                customdata=np.full(len(labels), query),
                hovertemplate="query %{customdata} → key %{x}<br>weight %{y:.3f}"
                f"<extra>{name}</extra>",
            ),
            row=1,
            col=col,
        )
    for col in (1, 2):
        for target in result.targets:
            fig.add_vrect(
                x0=target - 0.5,
                x1=target + 0.5,
                row=1,
                col=col,
                fillcolor="#999999",
                opacity=0.18,
                line_width=0,
                layer="below",
            )
    fig.update_xaxes(type="category", tickangle=-45, title_text="key token (targets shaded)")
    fig.update_yaxes(range=[0, 1.05], title_text="attention weight", row=1, col=1)
    fig.update_layout(barmode="group", legend={"orientation": "h", "y": -0.45})
    return _layout(fig, 440)


def two_target_curves(result: TwoTargetResult) -> go.Figure:
    """The objective during the fit, with the floor one head can never go below."""
    steps = np.arange(1, len(result.one_head_loss) + 1)
    fig = go.Figure()
    for loss, name, head in (
        (result.one_head_loss, "one head", 0),
        (result.two_heads_loss, "two heads", 1),
    ):
        fig.add_trace(
            go.Scatter(
                x=steps,
                y=loss,
                name=name,
                mode="lines",
                line={"color": head_color(head), "width": 3},
                hovertemplate=f"{name}<br>step %{{x}}<br>loss %{{y:.4f}}<extra></extra>",
            )
        )
    fig.add_hline(
        y=ONE_HEAD_FLOOR,
        line={"dash": "dash", "color": "#444444"},
        annotation_text="log 2: one head's floor",
        annotation_position="top right",
    )
    fig.update_xaxes(title_text="optimisation step")
    # The first steps can start far above the floor; keep the floor and the end in view.
    top = max(3.0, 1.2 * max(result.one_head_loss[-1], result.two_heads_loss[-1]))
    fig.update_yaxes(title_text="−½ (log w_a + log w_b)", range=[0, top])
    return _layout(fig, 360, legend={"orientation": "h", "y": -0.3})


# §3 ---------------------------------------------------------------------------------


def rank_error_chart(result: RankLimitResult, marks: Mapping[str, int]) -> go.Figure:
    """Best error against d_head, with vertical lines at the `marks` (label → d_head)."""
    fig = go.Figure(
        go.Scatter(
            x=result.d_heads,
            y=result.error,
            mode="lines+markers",
            line={"color": "#000000", "width": 3},
            marker={"size": 9},
            customdata=result.misplaced * 100,
            name="best fit",
            hovertemplate="d_head = %{x}<br>KL error %{y:.4f} nats<br>"
            "misplaced attention %{customdata:.1f} %<extra></extra>",
        )
    )
    for (label, d_head), (color, dash) in zip(marks.items(), LAYOUT_STYLES[1:], strict=False):
        if 1 <= d_head <= result.d_heads[-1]:
            fig.add_vline(x=d_head, line={"color": color, "dash": dash, "width": 2})
            fig.add_annotation(
                x=d_head,
                y=1,
                yref="paper",
                text=label,
                showarrow=False,
                font={"color": color},
                yanchor="bottom",
            )
    fig.update_xaxes(title_text="d_head", dtick=1 if len(result.d_heads) <= 20 else None)
    fig.update_yaxes(title_text="error: mean KL(target ‖ fit), nats", rangemode="tozero")
    return _layout(fig, 400, showlegend=False)


def singular_value_chart(result: RankLimitResult) -> go.Figure:
    """Singular values of each fitted score matrix as a staircase: row d_head, column i;
    blank where σ_i is below 10⁻⁶ of the largest (rank ≤ d_head)."""
    sv = result.singular_values
    tiny = sv <= 1e-6 * sv[:, :1]
    z = np.where(tiny, np.nan, np.log10(np.where(tiny, 1.0, sv)))
    index = np.arange(1, sv.shape[1] + 1)
    fig = go.Figure(
        go.Heatmap(
            z=np.round(z, 3),
            x=index,
            y=result.d_heads,
            customdata=np.round(sv, 3),
            colorscale="Viridis",
            colorbar={"title": {"text": "log₁₀ σ"}, "thickness": 14},
            hoverongaps=False,
            hovertemplate="d_head = %{y}<br>σ_%{x} = %{customdata}<extra></extra>",
            xgap=1,
            ygap=1,
        )
    )
    fig.update_xaxes(title_text="singular value index i", dtick=1 if len(index) <= 20 else None)
    fig.update_yaxes(
        title_text="d_head", autorange="reversed", dtick=1 if len(index) <= 20 else None
    )
    return _layout(fig, 420)


def rank_patterns(result: RankLimitResult, d_heads: Sequence[int]) -> go.Figure:
    """The target pattern beside the fitted patterns at the chosen d_heads."""
    n = result.target.shape[0]
    tokens = [f"t{i}" for i in range(n)]
    chosen = [d for d in dict.fromkeys(d_heads) if 1 <= d <= result.d_heads[-1]]
    maps = np.stack([result.target, *(result.fitted[d - 1] for d in chosen)])
    titles = ["target"] + [f"d_head = {d}" for d in chosen]
    return attention_grid(
        maps, tokens, titles=titles, columns=len(titles), head_colors=False, panel_px=300
    )


# §4 ---------------------------------------------------------------------------------


def loss_curves(curves: Mapping[str, np.ndarray], steps: int) -> go.Figure:
    """Training loss per variant (label → losses so far): raw per-batch loss faint, its
    running mean over SMOOTHING steps bold; the x axis spans all `steps`."""
    fig = go.Figure()
    for (label, losses), (color, dash) in zip(curves.items(), LAYOUT_STYLES, strict=False):
        x = np.arange(1, len(losses) + 1)
        fig.add_trace(
            go.Scatter(
                x=x,
                y=np.round(losses, 4),
                mode="lines",
                line={"color": color, "width": 1},
                opacity=0.25,
                showlegend=False,
                hoverinfo="skip",
            )
        )
        fig.add_trace(
            go.Scatter(
                x=x,
                y=np.round(_running_mean(losses, SMOOTHING), 4),
                mode="lines",
                name=label,
                line={"color": color, "dash": dash, "width": 3},
                hovertemplate=f"{label}<br>step %{{x}}<br>loss %{{y:.3f}}<extra></extra>",
            )
        )
    fig.update_xaxes(title_text="training step", range=[0, steps])
    fig.update_yaxes(title_text=f"loss (nats, mean of {SMOOTHING} steps)", rangemode="tozero")
    return _layout(fig, 420, legend={"orientation": "h", "y": -0.25})


def head_maps(comparison: Comparison) -> go.Figure:
    """Each trained head's weights for the query token '?' on one example: one block of
    rows per variant, one row per head (its colour on the left), one column per token."""
    keys = list(comparison.results)
    maps = {key: comparison.example_weights(key) for key in keys}
    labels = unique_labels(comparison.example_tokens)
    fig = make_subplots(
        rows=len(keys),
        cols=1,
        shared_xaxes=True,
        vertical_spacing=0.09,
        row_heights=[maps[key].shape[0] + 0.6 for key in keys],
        subplot_titles=[comparison.results[key].variant.label for key in keys],
    )
    for row, key in enumerate(keys, start=1):
        weights = maps[key]
        names = [f"head {h + 1}" for h in range(len(weights))]
        fig.add_trace(
            go.Heatmap(
                z=np.round(weights, 4),
                x=labels,
                y=names,
                coloraxis="coloraxis",
                xgap=1,
                ygap=1,
                hovertemplate="%{y}: query ? → %{x}<br>weight %{z:.3f}<extra></extra>",
            ),
            row=row,
            col=1,
        )
        fig.update_yaxes(autorange="reversed", showticklabels=False, row=row, col=1)
        for h, name in enumerate(names):
            fig.add_annotation(
                x=-0.01,
                xref=f"x{'' if row == 1 else row} domain",
                xanchor="right",
                y=name,
                yref=f"y{'' if row == 1 else row}",
                text=f"■ {name} ",
                showarrow=False,
                font={"color": head_color(h)},
            )
    # Every axis categorical: tokens such as "5" must not turn an axis numeric.
    fig.update_xaxes(type="category")
    fig.update_yaxes(type="category")
    fig.update_xaxes(title_text="key token (A:s and B:s are the targets)", row=len(keys), col=1)
    fig.update_layout(
        coloraxis=WEIGHT_AXIS,
    )
    fig = _layout(fig, 130 + 45 * sum(len(m) + 1 for m in maps.values()))
    fig.update_layout(margin={"l": 110})
    return fig


def comparison_table(comparison: Comparison) -> list[dict[str, object]]:
    """One row per variant of one seed: accuracy, how it got there, head diversity."""
    rows = []
    for result in comparison.results.values():
        on_a = int((result.focus[:, 0] > 0.5).sum())
        on_b = int((result.focus[:, 1] > 0.5).sum())
        steps = result.steps_to(0.95)
        rows.append(
            {
                "variant": result.variant.label,
                "accuracy (both right)": _pct(result.accuracy),
                "A right": _pct(result.answer_accuracy[0]),
                "B right": _pct(result.answer_accuracy[1]),
                "steps to 95 %": "never" if steps is None else str(steps),
                "heads mostly on A / on B": f"{on_a} / {on_b}",
                "head diversity (JSD, bits)": _number(result.diversity),
                "training time (s)": f"{result.seconds:.1f}",
            }
        )
    return rows


def seed_table(
    summary: Mapping[str, Mapping[str, np.ndarray]], labels: Mapping[str, str]
) -> list[dict[str, object]]:
    """Across seeds, per variant: mean ± standard deviation and the range."""
    rows = []
    for key, values in summary.items():
        accuracy, diversity, steps = (values[k] for k in ("accuracy", "diversity", "steps_to_95"))
        reached = steps[~np.isnan(steps)]
        rows.append(
            {
                "variant": labels[key],
                "accuracy mean ± sd": f"{accuracy.mean():.1%} ± {accuracy.std():.1%}",
                "accuracy min – max": f"{accuracy.min():.1%} – {accuracy.max():.1%}",
                "seeds reaching 95 %": f"{len(reached)} of {len(steps)}",
                "steps to 95 % (median)": f"{np.median(reached):.0f}" if len(reached) else "—",
                "head diversity mean ± sd": "—"
                if np.isnan(diversity).all()
                else f"{diversity.mean():.3f} ± {diversity.std():.3f}",
            }
        )
    return rows


def seed_spread(
    summary: Mapping[str, Mapping[str, np.ndarray]],
    labels: Mapping[str, str],
    seeds: Sequence[int],
    n_symbols: int,
) -> go.Figure:
    """Every seed's final accuracy as a dot per variant, so the spread is visible; with
    the chance level 1/n_symbols² and 1/n_symbols (one answer known, one guessed)."""
    fig = go.Figure()
    for (key, values), (color, _) in zip(summary.items(), LAYOUT_STYLES, strict=False):
        fig.add_trace(
            go.Scatter(
                x=values["accuracy"] * 100,
                y=[labels[key]] * len(seeds),
                mode="markers",
                name=labels[key],
                marker={
                    "color": color,
                    "size": 14,
                    "opacity": 0.75,
                    "line": {"width": 1, "color": "white"},
                },
                customdata=list(seeds),
                hovertemplate="%{y}<br>seed %{customdata}: %{x:.1f} %<extra></extra>",
                showlegend=False,
            )
        )
    chance = {"chance": 100 / n_symbols**2, "one answer right": 100 / n_symbols}
    for (label, x), dash in zip(chance.items(), ("dot", "dash"), strict=True):
        fig.add_vline(x=x, line={"color": "#888888", "dash": dash})
        fig.add_annotation(
            x=x,
            y=1,
            yref="paper",
            text=f"{label}: {x:.1f} %",
            showarrow=False,
            yanchor="bottom",
            xanchor="left",
            font={"color": "#555555"},
        )
    fig.update_xaxes(
        title_text="accuracy on held-out sequences (%), one dot per seed", range=[-2, 102]
    )
    fig.update_yaxes(type="category", autorange="reversed")
    fig = _layout(fig, 340)
    fig.update_layout(margin={"l": 10, "t": 40})
    return fig


# §5 ---------------------------------------------------------------------------------


def slicing_figure(w_q: np.ndarray) -> go.Figure:
    """W_Q (h, d_model, d_head) as one d_model × h·d_head matrix, each head's column block
    under a bar of its colour (left), beside the block-diagonal matrix slicing would mean."""
    n_heads, d_model, d_head = w_q.shape
    whole, cut = stacked(w_q), stacked(sliced(w_q))
    limit = float(np.abs(whole).max()) or 1.0
    columns = np.arange(n_heads * d_head)
    head_of = columns // d_head
    custom = np.broadcast_to(head_of + 1, whole.shape)
    fig = make_subplots(
        rows=1,
        cols=2,
        horizontal_spacing=0.08,
        subplot_titles=(
            "W_Q as it is: every head reads every coordinate",
            "If heads sliced the embedding (not what happens)",
        ),
    )
    for col, matrix in enumerate((whole, cut), start=1):
        fig.add_trace(
            go.Heatmap(
                z=np.round(matrix, 3),
                customdata=custom,
                coloraxis="coloraxis",
                hovertemplate="input coordinate %{y}<br>head %{customdata}, column %{x}"
                "<br>weight %{z:.3f}<extra></extra>",
            ),
            row=1,
            col=col,
        )
        for h in range(n_heads):
            x0, x1 = h * d_head - 0.5, (h + 1) * d_head - 0.5
            fig.add_shape(
                type="rect",
                x0=x0,
                x1=x1,
                y0=-0.5 - d_model * 0.06,
                y1=-0.5,
                fillcolor=head_color(h),
                line_width=0,
                row=1,
                col=col,
            )
            fig.add_annotation(
                x=(x0 + x1) / 2,
                y=-0.5 - d_model * 0.03,
                text=f"head {h + 1}" if n_heads <= 8 else str(h + 1),
                showarrow=False,
                font={"color": "white", "size": FONT_SIZE - 3},
                row=1,
                col=col,
            )
            if h:
                fig.add_vline(x=x0, line={"color": "#333333", "width": 1}, row=1, col=col)
    fig.update_xaxes(title_text="column of W_Q (head blocks, head 1 first)", showgrid=False)
    fig.update_yaxes(
        title_text="input coordinate", autorange="reversed", showgrid=False, row=1, col=1
    )
    fig.update_yaxes(autorange="reversed", showgrid=False, row=1, col=2)
    fig.update_layout(
        coloraxis={
            "colorscale": DIVERGING,
            "cmin": -limit,
            "cmax": limit,
            "cmid": 0,
            "colorbar": {"title": {"text": "weight"}, "thickness": 14},
        },
    )
    return _layout(fig, min(720, 260 + 6 * d_model))


def slice_share_chart(weights: Mapping[str, np.ndarray]) -> go.Figure:
    """Per head, for each named W_Q (h, d_model, d_head): the share of its squared weights
    in its own slice's rows. Slicing would make it 100 %; reading every coordinate evenly
    gives 1/h."""
    fig = make_subplots(rows=1, cols=len(weights), shared_yaxes=True, subplot_titles=list(weights))
    for col, w_q in enumerate(weights.values(), start=1):
        share = own_slice_share(w_q) * 100
        n_heads = len(share)
        fig.add_trace(
            go.Bar(
                x=[f"head {h + 1}" for h in range(n_heads)],
                y=share,
                marker={"color": [head_color(h) for h in range(n_heads)]},
                hovertemplate="%{x}: %{y:.1f} % of its weight in its own slice<extra></extra>",
                showlegend=False,
            ),
            row=1,
            col=col,
        )
        even = 100 / n_heads
        fig.add_hline(
            y=even,
            line={"dash": "dash", "color": "#444444"},
            annotation_text=f"1/h = {even:.0f} %: reads evenly",
            row=1,
            col=col,
        )
        fig.add_hline(
            y=100,
            line={"dash": "dot", "color": "#444444"},
            annotation_text="100 %: slicing",
            row=1,
            col=col,
        )
    fig.update_yaxes(title_text="% of W_Q weight in own slice", range=[0, 110], row=1, col=1)
    fig.update_xaxes(type="category")
    return _layout(fig, 360)


def _running_mean(values: np.ndarray, window: int) -> np.ndarray:
    """Mean of the last `window` values at each step (fewer at the start)."""
    sums = np.cumsum(np.insert(np.asarray(values, dtype=np.float64), 0, 0.0))
    counts = np.minimum(np.arange(1, len(values) + 1), window)
    ends = np.arange(1, len(values) + 1)
    return (sums[ends] - sums[ends - counts]) / counts


def _pct(value: float) -> str:
    return f"{value:.0%}" if value >= 0.995 or value < 0.005 else f"{value:.1%}"


def _number(value: float | None) -> str:
    return "—" if value is None else f"{value:.3f}"
