"""The playground's sentences: where "du" puts its weight, and each challenge's verdict
saying when it is met and why. Percentages round half up, as the page's script does, so
the server's sentence and the browser's live one agree digit for digit."""

from __future__ import annotations

import math

import numpy as np

from attention.teaching.challenges import EVEN, HIGH, Outcome


def percent(weight: float) -> str:
    """A weight as a whole percentage, rounded half up ("62 %"); a weight above 0 never
    reads "0 %" ("<1 %") and one below 1 never "100 %" (">99 %"), as the app's percent."""
    whole = math.floor(100 * weight + 0.5)
    if whole == 0 and weight > 0:
        return "<1 %"
    if whole == 100 and weight < 1:
        return ">99 %"
    return f"{whole} %"


def weight_sentence(tokens: tuple[str, ...], query_index: int, weights: np.ndarray) -> str:
    """“du” gives 62 % to “tea”, 31 % to “it's”: the two largest shares of one head."""
    order = np.argsort(-np.asarray(weights), kind="stable")[:2]
    parts = ", ".join(f"{percent(weights[j])} to “{tokens[j]}”" for j in order)
    return f"“{tokens[query_index]}” gives {parts}"


def _shares(outcome: Outcome) -> str:
    heads = outcome.heads_shown > 1
    return " and ".join(
        f"“{token}” {percent(w)}" + (f" in head {head}" if heads else "")
        for head, token, w in outcome.shares
    )


def verdict(outcome: Outcome) -> str:
    """Met or not yet, with the shares read and why they come out so."""
    number, shares = outcome.challenge.number, _shares(outcome)
    high, low, top = percent(HIGH), percent(EVEN[0]), percent(EVEN[1])
    if number == 1:
        if outcome.met:
            return (
                f"**Met**: {shares}. Its key has the longest projection on the query's "
                "direction, so the largest score q·k/√2, and the softmax turns that lead "
                "into the largest share."
            )
        return (
            f"**Not yet**: {shares}, more than {high} needed. Turn the query towards "
            "“tea”'s key and away from “it's”'s, or lengthen it (a longer query multiplies "
            "every score, like a lower temperature)."
        )
    if number == 2:
        if outcome.met:
            return (
                f"**Met**: {shares}. The two keys project about equally far on the "
                "query's direction, so their scores and shares are about equal."
            )
        return (
            f"**Not yet**: {shares}, each {low}–{top} needed. Point the query between "
            "the two keys, so that their projections on its direction are equally long."
        )
    if number == 3:
        why = (
            f"Both above {high} is impossible: one head's weights always sum to 100 %, "
            f"so two shares above {high} would need more than 120 %."
        )
        if outcome.met:
            return f"**No — and you got as close as one head can**: {shares}. {why}"
        return (
            f"**Not yet**: {shares}. Get both to at least {low}: the keys of “tea” and "
            "“for” lie on opposite sides, so drag a key too (second mode). " + why
        )
    if outcome.heads_shown < 2:
        return "**Not yet**: switch to two heads, then move each head's query."
    if outcome.met:
        return (
            f"**Met**: {shares}. Each head has its own softmax summing to 100 %, so two "
            "heads can each give most of their weight to a different token: together they "
            "deliver both values, which one head cannot."
        )
    return (
        f"**Not yet**: {shares}, both above {high} needed. Head 2's key of “for” is boxed in "
        "by other keys, so no query direction makes it the largest: drag it out (second mode)."
    )
