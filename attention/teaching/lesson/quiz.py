"""Multiple-choice questions whose right answer is computed from the view on screen."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

MAX_OPTIONS = 4


@dataclass(frozen=True)
class Quiz:
    """Options in display order and which one is right."""

    options: tuple[str, ...]
    answer: int

    @property
    def right(self) -> str:
        return self.options[self.answer]


def choice_quiz(right: str, candidates: Sequence[str], seed: int = 0) -> Quiz:
    """The right option and up to three distinct wrong ones from `candidates` (first
    ones first), shuffled by `seed` so the answer's place varies from step to step."""
    wrong = [c for c in dict.fromkeys(candidates) if c != right][: MAX_OPTIONS - 1]
    if not wrong:
        raise ValueError(
            f"candidates must hold at least one option other than the right one {right!r}; "
            f"got {list(candidates)!r}."
        )
    options = [right, *wrong]
    order = np.random.default_rng(seed).permutation(len(options))
    shuffled = tuple(options[i] for i in order)
    return Quiz(shuffled, shuffled.index(right))


def index_quiz(labels: Sequence[str], right: int, ranking: Sequence[int], seed: int = 0) -> Quiz:
    """A question whose answer is `labels[right]`; the wrong options are the next ones in
    `ranking` (e.g. the runners-up), so the question is not trivially easy."""
    return choice_quiz(labels[right], [labels[i] for i in ranking if i != right], seed)
