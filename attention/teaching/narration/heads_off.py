"""The sentences of "Do we need all these heads?", each built from the numbers it states:
the most and least important heads, how many heads pruning removes before the score
drops, and raw attention against rollout for the focus token. Tokens pass through
`escape` for the medium the sentence is shown in."""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np

from attention.analysis.heads_off import (
    PruningSummary,
    RankedHead,
    RolloutContrast,
    extreme_heads,
)
from attention.figures.base.text import percent
from attention.teaching.wording import plural

Escape = Callable[[str], str]
NAMED_TIES = 3  # at most this many tied heads are named


def describe_head(head: RankedHead, value: Callable[[float], str]) -> str:
    """One head in bold with its main role's share and its importance written by `value`."""
    return (
        f"**layer {head.layer + 1} head {head.head + 1}** ({head.role} "
        f"{head.share:.0%}, importance {value(head.importance)})"
    )


def _named(heads: list[RankedHead], value: Callable[[float], str]) -> str:
    """One head, or how many tie and the first few of them."""
    if len(heads) == 1:
        return describe_head(heads[0], value)
    shown = "; ".join(describe_head(head, value) for head in heads[:NAMED_TIES])
    more = "" if len(heads) <= NAMED_TIES else ", among them"
    return f"{len(heads)} heads tie{more}: {shown}"


def importance_sentence(
    importance: np.ndarray,
    on: np.ndarray,
    roles: dict[str, np.ndarray],
    value: Callable[[float], str],
) -> str:
    """Markdown naming the most and the least important heads that are on; `value`
    writes an importance."""
    most, least = extreme_heads(importance, on, roles)
    if not most:
        return "Every head is switched off: there is nothing left to rank."
    if most[0].importance == least[0].importance:
        return (
            f"Every head that is on has the same importance, {value(most[0].importance)}: "
            "switching any one of them off alone changes this score equally."
        )
    text = f"Most important: {_named(most, value)}. Least important: {_named(least, value)}."
    if least[0].importance < 0:
        text += " A negative importance means the score rises when that head is off."
    return text


def pruning_sentence(summary: PruningSummary) -> str:
    """Markdown: the heads the importance order removes before the drop, and random orders."""
    points = f"{summary.drop * 100:.0f} points"
    start = f"With all {summary.total_heads} heads the accuracy is {percent(summary.start)}. "
    if summary.after is None:
        text = (
            f"Least important first, all {summary.last} heads the curve removes (down to one "
            f"per layer) go without the accuracy dropping by {points}"
        )
    else:
        removed, score = summary.after
        text = (
            f"Least important first, **{summary.by_importance} of {summary.total_heads} "
            f"heads** go before the accuracy drops by {points} (with {removed} off it is "
            f"{percent(score)})"
        )
    random = sorted(summary.by_random)
    if random:
        median = float(np.median(random))
        count = len(random)
        text += (
            f"; in a random order, {median:g} (the median of {count} "
            f"{plural(count, 'order')}, from {random[0]} to {random[-1]})"
        )
    if summary.measure_every > 1:
        text += (
            f". The curves are measured every {summary.measure_every} heads, so each count "
            f"may be up to {summary.measure_every - 1} higher"
        )
    return start + text + "."


def rollout_sentence(
    contrast: RolloutContrast, tokens: Sequence[str], focus: int, escape: Escape
) -> str:
    """Markdown: what raw attention and rollout say about the focus token in the last layer."""

    def name(index: int) -> str:
        return f"“{escape(tokens[index])}”"

    layer = contrast.layer + 1
    text = (
        f"In layer {layer}, {name(focus)} puts {percent(contrast.self_raw)} of its raw "
        f"attention (mean over heads) on itself and {percent(contrast.cls_raw)} on [CLS]; "
        f"rollout traces {percent(contrast.self_rollout)} of its vector back to itself and "
        f"{percent(contrast.cls_rollout)} to [CLS]. "
    )
    if contrast.top_raw == contrast.top_rollout:
        return text + f"Both put the most weight on {name(contrast.top_raw)}."
    return (
        text + f"Raw attention's largest weight is on {name(contrast.top_raw)}, "
        f"rollout's on {name(contrast.top_rollout)}."
    )
