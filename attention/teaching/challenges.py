"""The playground's challenges, checked exactly on the server from the engine's weights
of "du" (one row of weights per head shown). Each check returns the shares it read, so
the page's sentence says when it is met and why (attention/teaching/narration/playground.py).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

HIGH = 0.6  # "more than 60 %"
EVEN = (0.4, 0.6)  # "each 40–60 %"


@dataclass(frozen=True)
class Challenge:
    """One task: its prompt and how many heads it needs on screen."""

    number: int
    prompt: str
    heads: int


@dataclass(frozen=True)
class Outcome:
    """A check's result: met or not, and the shares it read as (head, token, weight)."""

    challenge: Challenge
    met: bool
    shares: tuple[tuple[int, str, float], ...]
    heads_shown: int


CHALLENGES = (
    Challenge(1, "Make “du” give more than 60 % to “tea”.", 1),
    Challenge(2, "Make “du” split its weight evenly between “tea” and “it's” (each 40–60 %).", 1),
    Challenge(3, "With one head, can you give both “tea” and “for” more than 60 %?", 1),
    Challenge(4, "Now use two heads: “tea” more than 60 % in head 1, “for” in head 2.", 2),
)


def _index(tokens: tuple[str, ...], token: str) -> int:
    """A token's position, matched case-insensitively and with either apostrophe."""
    wanted = token.replace("’", "'").casefold()
    return [t.replace("’", "'").casefold() for t in tokens].index(wanted)


def check(number: int, tokens: tuple[str, ...], weights: np.ndarray) -> Outcome:
    """Check challenge `number` against `weights` (heads shown, n tokens): du's weight
    on each key in each head shown, as the engine computed them."""
    challenge = CHALLENGES[number - 1]
    weights = np.asarray(weights, dtype=np.float64)
    shown = weights.shape[0]

    def share(head: int, token: str) -> tuple[int, str, float]:
        return head, token, float(weights[head - 1, _index(tokens, token)])

    if number == 1:
        shares = (share(1, "tea"),)
        met = shares[0][2] > HIGH
    elif number == 2:
        shares = (share(1, "tea"), share(1, "it's"))
        met = all(EVEN[0] <= w <= EVEN[1] for _, _, w in shares)
    elif number == 3:
        # Both above 60 % is impossible (one head's weights sum to 1): met when the
        # student gets as close as one head allows, both at least the even split's 40 %.
        shares = (share(1, "tea"), share(1, "for"))
        met = all(w >= EVEN[0] for _, _, w in shares)
    else:
        if shown < 2:
            return Outcome(challenge, False, (share(1, "tea"),), shown)
        shares = (share(1, "tea"), share(2, "for"))
        met = all(w > HIGH for _, _, w in shares)
    return Outcome(challenge, bool(met), shares, shown)
