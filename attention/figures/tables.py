"""Every table the pages show: plain rows (a list of dicts, one per row) ready for a
sortable table, or a pandas DataFrame / Styler where the page shows an index or formats
numbers. Tokens stay plain text: Streamlit's tables never render markup.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
import pandas as pd
from pandas.io.formats.style import Styler

from attention.analysis.head_roles import ENTROPY, strongest_role
from attention.experiments.equal_cost import LayoutCost
from attention.experiments.training.train import Comparison
from attention.figures.base.text import unique_labels
from attention.geometry.head_spaces import Neighbours
from attention.wording import percent


def _head_names(n_heads: int) -> list[str]:
    return [f"head {h + 1}" for h in range(n_heads)]


# Head spaces ------------------------------------------------------------------------


def neighbour_table(tokens: Sequence[str], near: Neighbours, rows: int = 8) -> pd.DataFrame:
    """The `rows` tokens nearest to the focus token by cosine in the original space,
    then per head the keys its query scores highest, each with its number; rows
    counted from 1."""
    rows = min(rows, len(tokens))
    table = {
        "original space (cosine)": [
            f"{tokens[j]} ({near.original_cosine[j]:+.2f})" for j in near.original_order[:rows]
        ]
    }
    for h, (order, scores) in enumerate(zip(near.head_orders, near.head_scores, strict=True)):
        table[f"head {h + 1} (score)"] = [f"{tokens[j]} ({scores[j]:+.2f})" for j in order[:rows]]
    return pd.DataFrame(table, index=range(1, rows + 1))


def rank_correlation_table(near: Neighbours) -> Styler:
    """Per head, the rank correlation between its scores and the original cosine order
    ("n/a" where a head scores every key the same)."""
    table = pd.DataFrame(
        {"rank correlation with the original order": near.rank_corr},
        index=_head_names(len(near.rank_corr)),
    )
    return table.style.format("{:+.2f}", na_rep="n/a")


# Attention maps ---------------------------------------------------------------------


def head_kind_table(
    summary: Mapping[str, list],
    query_tokens: Sequence[str],
    key_tokens: Sequence[str],
    focus: int,
    head_names: Sequence[str] | None = None,
) -> Styler:
    """One row per head from attention.analysis.head_metrics.summarise_heads: entropy, largest
    weight, the key the focus query looks at most (with its weight) and the pattern;
    rows named `head_names` (default "head 1", …)."""
    top_keys = zip(summary["focus_top_key"], summary["focus_top_weight"], strict=True)
    table = pd.DataFrame(
        {
            "entropy (bits)": summary["entropy_bits"],
            "largest weight": summary["max_weight"],
            f"“{query_tokens[focus]}” looks most at": [
                f"{key_tokens[j]} ({w:.2f})" for j, w in top_keys
            ],
            "pattern": summary["pattern"],
        },
        index=list(head_names or _head_names(len(summary["pattern"]))),
    )
    return table.style.format({"entropy (bits)": "{:.2f}", "largest weight": "{:.2f}"})


# Why several heads? -----------------------------------------------------------------


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


def pattern_checkboxes(pattern: np.ndarray) -> pd.DataFrame:
    """An (n, n) target pattern as ticks to edit: True where a query row attends to a
    key column, rows and columns named t0, t1, …"""
    names = [f"t{i}" for i in range(pattern.shape[0])]
    return pd.DataFrame(np.asarray(pattern) > 0, index=names, columns=names)


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
                "accuracy (both right)": percent(result.accuracy, 1),
                "A right": percent(result.answer_accuracy[0], 1),
                "B right": percent(result.answer_accuracy[1], 1),
                "steps to 95 %": "never" if steps is None else str(steps),
                "heads mostly on A / on B": f"{on_a} / {on_b}",
                "head diversity (JSD, bits)": "—"
                if result.diversity is None
                else f"{result.diversity:.3f}",
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


def variant_weight_rows(
    labels: Mapping[str, str], weights: Mapping[str, np.ndarray], tokens: Sequence[str]
) -> list[dict[str, object]]:
    """Per variant (key → (heads, n) weights of the query), one row per key token with
    a column per head: the trained heads' map as a table."""
    return [
        {"variant": labels[key], **row}
        for key, rows in weights.items()
        for row in focus_weight_rows(tokens, rows)
    ]


def seed_accuracy_rows(
    summary: Mapping[str, Mapping[str, np.ndarray]],
    labels: Mapping[str, str],
    seeds: Sequence[int],
) -> list[dict[str, object]]:
    """One row per variant and seed: its held-out accuracy in percent (the dots drawn)."""
    return [
        {"variant": labels[key], "seed": seed, "accuracy (%)": round(100 * float(a), 3)}
        for key, values in summary.items()
        for seed, a in zip(seeds, values["accuracy"], strict=True)
    ]


def slice_share_rows(shares: Mapping[str, np.ndarray]) -> list[dict[str, object]]:
    """One row per W_Q (named) and head: the share of the head's weight in its own
    slice, in percent (the bars drawn)."""
    return [
        {"W_Q": name, "head": h + 1, "own slice (%)": round(100 * float(share), 3)}
        for name, own in shares.items()
        for h, share in enumerate(own)
    ]


def slice_rows(
    rows: Sequence[Mapping[str, object]], labels: Mapping[str, str]
) -> list[Mapping[str, object]]:
    """The rows (of `comparison_table` or `seed_table`) of the two variants that differ
    only in reading a slice: (b) h heads of d/h and (d) the same, sliced."""
    pair = (labels["split"], labels["sliced"])
    return [row for row in rows if row["variant"] in pair]


# Inside a real model ----------------------------------------------------------------


def role_table(scores: dict[str, np.ndarray]) -> list[dict[str, object]]:
    """One row per head of a (layers, heads) role score set (attention.analysis.head_roles),
    layers and heads counted from 1, ready for a sortable table."""
    strongest = strongest_role(scores)
    layers, heads = scores[ENTROPY].shape
    return [
        {
            "layer": layer + 1,
            "head": head + 1,
            "strongest role": strongest[layer, head],
            **{name: float(values[layer, head]) for name, values in scores.items()},
        }
        for layer in range(layers)
        for head in range(heads)
    ]


# Charts as tables (the "Show as table" switch under a chart) -----------------------
# Rounded to 3 decimals: a screen reader reads every digit.


def point_rows(tokens: Sequence[str], coords: np.ndarray) -> list[dict[str, object]]:
    """One row per token of a 2-D picture: its drawn coordinates."""
    return [
        {"token": token, "x (PC 1)": round(float(x), 3), "y (PC 2)": round(float(y), 3)}
        for token, (x, y) in zip(tokens, np.asarray(coords), strict=True)
    ]


def focus_weight_rows(
    key_tokens: Sequence[str], focus_rows: np.ndarray, head_names: Sequence[str] | None = None
) -> list[dict[str, object]]:
    """One row per key: the weight one query puts on it in each head, `focus_rows`
    (heads, n_keys), one column per head ("head 1", … unless named)."""
    columns = np.asarray(focus_rows).T
    head_names = head_names or _head_names(len(focus_rows))
    return [
        {
            "key": token,
            **{name: round(float(w), 3) for name, w in zip(head_names, row, strict=True)},
        }
        for token, row in zip(key_tokens, columns, strict=True)
    ]


def top_weight_rows(
    query_tokens: Sequence[str], key_tokens: Sequence[str], weights: np.ndarray, top: int = 3
) -> list[dict[str, object]]:
    """Per query of one map (n_q, n_k), its `top` heaviest keys, heaviest first: a long
    map read row by row, without a column per key."""
    weights = np.asarray(weights)
    return [
        {"query": query_tokens[q], "rank": rank, "key": key_tokens[k], "weight": round(float(w), 3)}
        for q, row in enumerate(weights)
        for rank, (k, w) in enumerate(
            ((k, row[k]) for k in np.argsort(-row, kind="stable")[:top]), start=1
        )
    ]


def rollout_rows(rows: np.ndarray, tokens: Sequence[str]) -> list[dict[str, object]]:
    """The focus token's raw attention and rollout (2, layers, n) as one row per layer
    and key, layers counted from 1."""
    raw, rolled = np.asarray(rows)
    return [
        {
            "layer": layer + 1,
            "key": token,
            "raw attention": round(float(raw[layer, k]), 3),
            "rollout": round(float(rolled[layer, k]), 3),
        }
        for layer in range(len(raw))
        for k, token in enumerate(tokens)
    ]


def head_score_rows(scores: np.ndarray, name: str) -> list[dict[str, object]]:
    """One row per head of a (layers, heads) score, layers and heads counted from 1."""
    layers, heads = np.shape(scores)
    return [
        {"layer": layer + 1, "head": head + 1, name: round(float(scores[layer, head]), 3)}
        for layer in range(layers)
        for head in range(heads)
    ]


def series_rows(
    x_name: str, x: Sequence[object], series: Mapping[str, Sequence[float]]
) -> list[dict[str, object]]:
    """A line chart as rows: one per x value, one column per line drawn (named)."""
    return [
        {x_name: value, **{name: shown_number(ys[i]) for name, ys in series.items()}}
        for i, value in enumerate(x)
    ]


# An attention map as a table: rows = queries, columns = keys. Past this many cells
# (maps × queries × keys) an HTML table is too long to read or to draw, and the pages
# show one query's row per map instead (focus_weight_rows).
MAX_MATRIX_CELLS = 4096


def matrix_rows(
    names: Sequence[str],
    query_tokens: Sequence[str],
    key_tokens: Sequence[str],
    maps: np.ndarray,
    allowed: np.ndarray | None = None,
) -> list[dict[str, object]]:
    """Maps (m, n_q, n_k) named `names` as tables: one row per map and query, one column
    per key, each weight to two decimals (the 0–1 scale's steps a reader compares), "—"
    where the mask `allowed` (broadcastable to the maps; True = may attend) blocks it."""
    maps = np.asarray(maps)
    blocked = (
        np.zeros(maps.shape, dtype=bool)
        if allowed is None
        else ~np.broadcast_to(np.asarray(allowed, dtype=bool), maps.shape)
    )
    keys = unique_labels(key_tokens)
    return [
        {
            "map": name,
            "query": query,
            **{
                key: "—" if cut else f"{w:.2f}"
                for key, w, cut in zip(keys, row, cut_row, strict=True)
            },
        }
        for name, weights, cuts in zip(names, maps, blocked, strict=True)
        for query, row, cut_row in zip(unique_labels(query_tokens), weights, cuts, strict=True)
    ]


def maps_table(
    names: Sequence[str],
    query_tokens: Sequence[str],
    key_tokens: Sequence[str],
    maps: np.ndarray,
    focus: int | None = None,
    allowed: np.ndarray | None = None,
) -> list[dict[str, object]]:
    """The maps' whole table (matrix_rows) when it has at most MAX_MATRIX_CELLS cells;
    past that, the `focus` query's row of every map (focus_weight_rows), or with no
    focus each query's heaviest keys in every map (top_weight_rows)."""
    maps = np.asarray(maps)
    if maps.size <= MAX_MATRIX_CELLS:
        return matrix_rows(names, query_tokens, key_tokens, maps, allowed)
    if focus is not None:
        return focus_weight_rows(key_tokens, maps[:, focus], list(names))
    return [
        {"map": name, **row}
        for name, weights in zip(names, maps, strict=True)
        for row in top_weight_rows(query_tokens, key_tokens, weights)
    ]


def stream_update_rows(
    names: Sequence[str],
    tokens: Sequence[str],
    stream_norms: np.ndarray,
    update_norms: np.ndarray,
    ratios: np.ndarray,
) -> list[dict[str, object]]:
    """One row per sublayer and token: ‖stream‖, ‖update‖ and their ratio (the bars)."""
    return [
        {
            "sublayer": name,
            "token": token,
            "‖stream‖": shown_number(stream[i]),
            "‖update‖": shown_number(update[i]),
            "‖update‖ / ‖stream‖": shown_number(ratio[i]),
        }
        for name, stream, update, ratio in zip(
            names, stream_norms, update_norms, ratios, strict=True
        )
        for i, token in enumerate(tokens)
    ]


def panel_point_rows(
    panels: Sequence[tuple[str, np.ndarray]], tokens: Sequence[str], panel_name: str = "panel"
) -> list[dict[str, object]]:
    """Per named 2-D picture (title, coords (n, 2)), one row per token: its coordinates."""
    return [
        {panel_name: title, "token": token, "x": shown_number(x), "y": shown_number(y)}
        for title, coords in panels
        for token, (x, y) in zip(tokens, np.asarray(coords), strict=True)
    ]


def shown_number(value: float) -> float:
    """A number as a table shows it: 3 decimals from 1 up, 4 significant digits below
    (a distance of 10⁻¹² must not read as 0)."""
    value = float(value)
    return round(value, 3) if abs(value) >= 1 else float(f"{value:.4g}")
