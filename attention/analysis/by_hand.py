"""One query worked through by hand, as a class would on the board: its dot product
with every key, divided by √d_head, the softmax and the weighted sum of the values, each
intermediate kept so the Lesson can show every number."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class ByHand:
    """Every intermediate of one query's attention, in float64; arrays over the keys."""

    query: np.ndarray  # (d_head,)
    keys: np.ndarray  # (n, d_head)
    values: np.ndarray  # (n, d_head)
    dots: np.ndarray  # (n,) q · k
    scores: np.ndarray  # (n,) q · k / √d_head
    exps: np.ndarray  # (n,) e^(score − largest score): the softmax's numerators
    weights: np.ndarray  # (n,) exps / their sum; sum to 1
    output: np.ndarray  # (d_head,) Σ weight × value

    @property
    def d_head(self) -> int:
        return self.query.shape[0]

    @property
    def winner(self) -> int:
        """The key with the largest weight (the first on a tie)."""
        return int(np.argmax(self.weights))


def by_hand(query: np.ndarray, keys: np.ndarray, values: np.ndarray) -> ByHand:
    """Attention for one `query` (d_head,) over `keys` and `values` (n, d_head), step by
    step. Subtracting the largest score before exp changes no weight (it cancels in the
    ratio) and keeps exp from overflowing."""
    q = np.asarray(query, dtype=np.float64)
    k = np.asarray(keys, dtype=np.float64)
    v = np.asarray(values, dtype=np.float64)
    if q.ndim != 1 or k.ndim != 2 or k.shape != v.shape or k.shape[1] != q.shape[0]:
        raise ValueError(
            f"query must have shape (d_head,), keys and values (n, d_head); got shapes "
            f"{q.shape}, {k.shape} and {v.shape}."
        )
    if not k.shape[0]:
        raise ValueError(f"keys must hold at least one key to attend to; got shape {k.shape}.")
    dots = k @ q
    scores = dots / np.sqrt(q.shape[0])
    exps = np.exp(scores - scores.max())
    weights = exps / exps.sum()
    return ByHand(q, k, v, dots, scores, exps, weights, weights @ v)
