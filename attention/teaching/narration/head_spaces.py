"""The sentences of "Head spaces" and "Start here", each built from the numbers it states:
how near means a higher score (measured ρ), what the heads cost beside one head of
d_model, and the captions that name the focus token and the sizes."""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

from attention.core.cost import attention_cost
from attention.geometry.head_spaces import AgreementRange
from attention.geometry.planes import Layout2D
from attention.teaching.markdown import literal
from attention.teaching.narration.charts import numbered_heads, per_head_shares, quoted, top_indices
from attention.wording import percent, plural


def _span(low: float, high: float, pattern: str) -> str:
    """`low to high` in `pattern`, one number when both print the same, n/a for NaN."""
    if math.isnan(low):
        return "n/a (every score equal)"
    shown_low, shown_high = pattern.format(low), pattern.format(high)
    return shown_low if shown_low == shown_high else f"{shown_low} to {shown_high}"


def nearness_sentence(rho: AgreementRange, d_head: int) -> str:
    """What holds exactly (the score space) and how much of it the head's own space and
    the 2-D pictures keep, as measured ρ(score, −distance) over the heads on screen."""
    return (
        "In each head's space plus one balancing coordinate, a query's nearest keys are "
        "the ones it scores highest: ρ(score, −distance) = "
        f"{_span(*rho.score_space, '{:.3f}')}. In the head's own {d_head} "
        f"{plural(d_head, 'dimension')} alone, ρ = {_span(*rho.head_space, '{:+.2f}')}; "
        f"the 2-D pictures keep ρ = {_span(*rho.picture, '{:+.2f}')} of that order."
    )


def intro_sentence(n_tokens: int, width: int, d_head: int, rho: AgreementRange) -> str:
    """The page's opening: the same vectors enter every head, each head's space has
    d_head dimensions, and how near relates to score there."""
    return (
        f"Every head gets the same **{n_tokens}** token {plural(n_tokens, 'vector')} "
        f"(width {width}) and moves them with its own $W_Q, W_K$ into a space of "
        f"**{d_head}** {plural(d_head, 'dimension')}. A query's weight on a key grows with "
        "their score, $q\\cdot k/\\sqrt{d_{head}}$, not with a distance. "
        + nearness_sentence(rho, d_head)
    )


def cost_sentence(d_model: int, n_heads: int, d_head: int, n_tokens: int) -> str:
    """What these heads cost beside one head of d_model (the full-size and d_head knobs
    change it): the split's claim — same cost, more distributions — measured."""
    cost = attention_cost(d_model, n_heads, d_head, n_tokens)
    work = (
        f"{cost.params:,} parameters and {cost.macs:,} multiply-adds for {n_tokens} "
        f"{plural(n_tokens, 'token')}"
    )
    if n_heads == 1 and d_head == d_model:
        return (
            f"Cost: this one head of {d_model} takes {work}, for one distribution per "
            f"query; h heads of {d_model}/h (h dividing {d_model}) take the same and give h."
        )
    one = attention_cost(d_model, 1, d_model, n_tokens)
    these, take = ("these", "take") if n_heads > 1 else ("this", "takes")
    gives = f"instead of {n_heads}" if n_heads > 1 else "as this one does"
    return (
        f"Cost: {these} {n_heads} {plural(n_heads, 'head')} of {d_head} {take} "
        f"{work}; one head of {d_model} would take {one.params:,} "
        f"and {one.macs:,} (×{cost.params / one.params:.2f} the parameters here) for one "
        f"distribution per query, {gives}."
    )


def answers_title(focus_token: str) -> str:
    """The heading of the values section, naming the focus token (escaped)."""
    return f"The heads' answers for “{literal(focus_token)}”"


def neighbours_caption(focus_token: str, width: int, d_head: int) -> str:
    """What the two neighbour tables measure, in full dimensions."""
    return (
        f"Left: the tokens nearest to “{literal(focus_token)}” by cosine in all {width} "
        f"dimensions. Then, per head, the keys its query scores highest in its "
        f"{d_head} {plural(d_head, 'dimension')}. A rank correlation near 1 "
        "means the head keeps the original neighbourhood; near 0 or below, the head has "
        "reordered it — not an artefact of any 2-D drawing."
    )


def start_page_plain(tokens: Sequence[str], focus: int, weights: np.ndarray) -> str:
    """Start here's opening in plain words, no notation: a sentence becomes points, each
    head moves them into its own space, and (measured on `weights`, the shown heads'
    (h, n, n)) where each head's focus token looks most."""
    looks = "; ".join(
        f"in head {h + 1}, at {quoted(tokens[int(np.argmax(row))])} "
        f"({percent(float(np.max(row)))} of its attention)"
        for h, row in enumerate(np.asarray(weights)[:, focus])
    )
    return (
        "A sentence becomes a set of points, one per word piece. An attention head moves "
        "those points into a space of its own, where each word gives most of its "
        "attention to the words that come nearest to it (a flat picture keeps most of "
        "that nearness; the pages measure how much). Every head moves the points its "
        "own way, so the heads can look at different words. In the picture below, "
        f"{quoted(tokens[focus])} looks most: {looks}."
    )


def start_page_sentence(d_head: int, rho: AgreementRange) -> str:
    """Start here's opening: every head moves the same vectors into its own space."""
    return (
        "Every attention head takes **the same token vectors** and moves them with its own "
        "three matrices, $W_Q$, $W_K$ and $W_V$, into a space of its own — here "
        f"{d_head} {plural(d_head, 'dimension')} per head. A query's weight on "
        "a key grows with their score $q\\cdot k$, so heads that move the points differently "
        "end up looking at different tokens. "
        + nearness_sentence(rho, d_head)
        + " This app lets you see it happen and measure it."
    )


def start_page_sizes(n_tokens: int, width: int, n_heads: int, d_head: int) -> str:
    """Start here's line on the lesson sentence's sizes."""
    return (
        f"{n_tokens} {plural(n_tokens, 'token')}, each a vector of "
        f"**{width}** numbers, going through **{n_heads}** "
        f"{plural(n_heads, 'head')} of **{d_head}** "
        f"{plural(d_head, 'dimension')}. "
        "Change the sentence and the knobs in the sidebar; every page follows them."
    )


# The charts' text alternatives ------------------------------------------------------


def before_summary(tokens: Sequence[str], before: Layout2D, focus: int) -> str:
    """The "before" picture: how many tokens, the variance its two axes keep, and the
    tokens drawn nearest to the focus token."""
    distance = np.linalg.norm(before.coords - before.coords[focus], axis=1)
    distance[focus] = np.inf
    nearest = [quoted(tokens[j]) for j in top_indices(-distance, min(3, len(tokens) - 1))]
    near = f" Nearest to {quoted(tokens[focus])} in the picture: {', '.join(nearest)}."
    return (
        f"Before any head: the {len(tokens)} token {plural(len(tokens), 'vector')} in 2-D, "
        f"the picture keeping {percent(before.variance_kept)} of their variance."
        + (near if nearest else "")
    )


def motion_summary(n_tokens: int, variance_kept: Sequence[float]) -> str:
    """The before → after animation: what its stages are and how faithful each head's is."""
    kept = ", ".join(f"head {h + 1} {percent(v)}" for h, v in enumerate(variance_kept))
    return (
        f"Animation: the {n_tokens} {plural(n_tokens, 'token')} before any head, then split "
        f"into a query and a key in each of {len(variance_kept)} "
        f"{plural(len(variance_kept), 'head')}. Variance kept per head: {kept}."
    )


def head_space_summary(tokens: Sequence[str], focus_rows: np.ndarray, focus: int) -> str:
    """Each head's query/key picture: where the focus token's query puts its weight
    (the lines' widths), per head; `focus_rows` (heads, n)."""
    return (
        f"Each head's queries and keys in 2-D, lines from {quoted(tokens[focus])}'s query "
        "as wide as its weights; "
        + per_head_shares(tokens, focus_rows, numbered_heads(len(focus_rows)))
        + "."
    )


def heatmap_summary(tokens: Sequence[str], focus_rows: np.ndarray, focus: int) -> str:
    """The heatmaps: one per head, and per head the focus token's row's heaviest keys."""
    n_heads = len(focus_rows)
    return (
        f"{n_heads} attention {plural(n_heads, 'map')}, rows are queries and columns keys, "
        f"each row summing to 1. {quoted(tokens[focus])}'s row: "
        + per_head_shares(tokens, focus_rows, numbered_heads(n_heads))
        + "."
    )


def values_summary(tokens: Sequence[str], focus_rows: np.ndarray, focus: int) -> str:
    """The values and ★ picture: each head's output for the focus token is the weighted
    average of its values; the values with the largest shares, per head."""
    return (
        f"Each head's output for {quoted(tokens[focus])} (★) is the weighted average of its "
        "values (■). Shares: "
        + per_head_shares(tokens, focus_rows, numbered_heads(len(focus_rows)))
        + "."
    )
