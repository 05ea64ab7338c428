"""The one sentence the Home and Head-spaces pages say about "near" and "score": built
from the measured rank agreement of the heads on screen, never typed in."""

from __future__ import annotations

import math

from attention.geometry.head_spaces import HeadSpaces, agreement_range
from attention.teaching.wording import plural


def _span(low: float, high: float, pattern: str) -> str:
    if math.isnan(low):
        return "n/a (every score equal)"
    shown_low, shown_high = pattern.format(low), pattern.format(high)
    return shown_low if shown_low == shown_high else f"{shown_low} to {shown_high}"


def nearness_sentence(spaces: HeadSpaces, d_head: int) -> str:
    """Markdown: what holds exactly (the score space) and how much of it the head's own
    space and the 2-D pictures keep, as measured ρ(score, −distance)."""
    rho = agreement_range(spaces)
    return (
        "In each head's space plus one balancing coordinate, a query's nearest keys are "
        "the ones it scores highest: ρ(score, −distance) = "
        f"{_span(*rho.score_space, '{:.3f}')}. In the head's own {d_head} "
        f"{plural(d_head, 'dimension')} alone, ρ = {_span(*rho.head_space, '{:+.2f}')}; "
        f"the 2-D pictures keep ρ = {_span(*rho.picture, '{:+.2f}')} of that order."
    )
