"""The sentences of "Do we need all these heads?", each built from the numbers it states:
the most and least important heads, how many heads pruning removes before the score
drops, and raw attention against rollout for the focus token. Tokens pass through
`escape` for the medium the sentence is shown in."""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np

from attention.analysis.heads_needed import (
    PruningSummary,
    RankedHead,
    RolloutContrast,
    extreme_heads,
)
from attention.teaching.markdown import literal
from attention.teaching.narration.charts import top_indices
from attention.wording import percent, plural

Escape = Callable[[str], str]
NAMED_TIES = 3  # at most this many tied heads are named


def describe_head(head: RankedHead, value: Callable[[float], str]) -> str:
    """One head in bold with its main role's share and its importance written by `value`."""
    return (
        f"**layer {head.layer + 1} head {head.head + 1}** ({head.role} "
        f"{percent(head.share)}, importance {value(head.importance)})"
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
    start = f"With all {summary.total_heads} heads the accuracy is {percent(summary.start, 1)}. "
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
            f"{percent(score, 1)})"
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
        f"In layer {layer}, {name(focus)} puts {percent(contrast.self_raw, 1)} of its raw "
        f"attention (mean over heads) on itself and {percent(contrast.cls_raw, 1)} on [CLS]; "
        f"rollout traces {percent(contrast.self_rollout, 1)} of its vector back to itself and "
        f"{percent(contrast.cls_rollout, 1)} to [CLS]. "
    )
    if contrast.top_raw == contrast.top_rollout:
        return text + f"Both put the most weight on {name(contrast.top_raw)}."
    return (
        text + f"Raw attention's largest weight is on {name(contrast.top_raw)}, "
        f"rollout's on {name(contrast.top_rollout)}."
    )


def intro_sentence(name: str, total_heads: int) -> str:
    """The page's opening: how many heads the model has and what switching one off means."""
    return (
        f"{name} has {total_heads} {plural(total_heads, 'head')}. Michel et al. "
        "(2019, “Are Sixteen Heads Really Better than One?”) found that many heads of a "
        "trained model can be switched off at test time with little loss, and a few cannot. "
        "Try it: a head switched off here adds nothing (its weighted sum of values becomes "
        "zeros before W_O); everything else runs as trained."
    )


def tokens_line(tokens: Sequence[str]) -> str:
    """The sentence's word pieces, escaped, with their count."""
    count = len(tokens)
    return f"**{count} {plural(count, 'token')}** of your sentence: " + literal(" · ".join(tokens))


def accuracy_change(accuracy: float, full: float) -> str | None:
    """The accuracy's change from every head on, in points; None when it is unchanged."""
    return f"{(accuracy - full) * 100:+.1f} points" if accuracy != full else None


def importance_wait(n_sentences: int) -> str:
    """Why the task importance waits for its button."""
    return (
        f"This runs the task's {n_sentences} {plural(n_sentences, 'sentence')} once per head "
        "that is on; it takes a while, so it waits for the button (the result is kept per "
        "set of switches)."
    )


def pruning_caption(rescore_every: int, random_orders: int, measure_every: int) -> str:
    """How the pruning curves are made: the order, the band of random orders, the steps."""
    return (
        "Switch heads off one after another, least important first (importance on the "
        f"paraphrase task, measured again every {rescore_every} heads), down to one head per "
        f"layer; the grey band spans {random_orders} random {plural(random_orders, 'order')}. "
        f"Every curve is measured every {measure_every} heads. Computed once per server (a "
        "few minutes: the task's sentences run again for every point), with every head on "
        "at the start (the switches above do not change it)."
    )


# The charts' text alternatives ------------------------------------------------------


def switches_summary(mask: np.ndarray) -> str:
    """The switches grid: how many heads are on, and how many in each layer."""
    mask = np.asarray(mask) > 0
    layers, heads = mask.shape
    per_layer = ", ".join(str(n) for n in mask.sum(axis=1))
    return (
        f"{mask.sum()} of {mask.size} heads on ({layers} {plural(layers, 'layer')} × {heads} "
        f"{plural(heads, 'head')}). Heads on per layer, from layer 1: {per_layer}."
    )


def importance_summary(
    importance: np.ndarray, on: np.ndarray, title: str, value: Callable[[float], str]
) -> str:
    """The importance map: the three highest and the three lowest heads that are on,
    each value written by `value`."""
    importance, on = np.asarray(importance, dtype=float), np.asarray(on, dtype=bool)
    heads = importance.shape[1]
    ranked = [i for i in top_indices(importance.ravel(), importance.size) if on.flat[i]]
    if not ranked:
        return f"The {title} of every head: all are switched off, so no cell is drawn (0 on)."
    count = min(3, len(ranked))

    def named(indices: Sequence[int]) -> str:
        return ", ".join(
            f"layer {i // heads + 1} head {i % heads + 1} ({value(importance.flat[i])})"
            for i in indices
        )

    return (
        f"The {title} of the {len(ranked)} {plural(len(ranked), 'head')} that are on, layers as "
        f"rows and heads as columns. Highest: {named(ranked[:count])}; lowest: "
        f"{named(ranked[::-1][:count])}."
    )


def pruning_summary(summary: PruningSummary, random_orders: int) -> str:
    """The pruning curves: where they start, and how many heads each order removes
    before the score drops."""
    random = sorted(summary.by_random)
    median = f"; {float(np.median(random)):g} in a random order (median)" if random else ""
    return (
        f"Paraphrase accuracy against heads switched off, least important first beside "
        f"{random_orders} random {plural(random_orders, 'order')}, starting at "
        f"{percent(summary.start, 1)} with all {summary.total_heads} heads. Heads removed "
        f"before it drops by {summary.drop * 100:.0f} points: {summary.by_importance} "
        f"least important first{median}."
    )
