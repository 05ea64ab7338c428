"""§1 "Same cost, more questions": the engine's cost accounting for three head layouts.

h heads of d_model/h, one head of d_model, and h full-size heads (d_head = d_model), each
counted by `attention.attention_cost`. The score part (q·k and the weighted sum of values)
is kept apart from the projections because it is the part that grows with n².
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from attention.core.cost import AttentionCost, attention_cost
from attention.core.validation import check_positive_int
from attention.wording import plural


@dataclass(frozen=True)
class LayoutCost:
    """One head layout and what it costs for one forward pass over n tokens."""

    label: str
    n_heads: int
    d_head: int
    cost: AttentionCost

    @property
    def projection_macs(self) -> int:
        """Multiply-adds of W_Q, W_K, W_V and W_O: linear in the number of tokens."""
        return self.cost.macs_qkv + self.cost.macs_output

    @property
    def score_macs(self) -> int:
        """Multiply-adds of q·k and of the weighted sum of values: grows with n²."""
        return self.cost.macs_scores + self.cost.macs_weighted_sum

    @property
    def distributions_per_query(self) -> int:
        """How many attention distributions each query gets: one per head."""
        return self.n_heads


def head_layouts(d_model: int, n_heads: int) -> list[tuple[str, int, int]]:
    """(label, n_heads, d_head) of the three layouts compared; d_model/h is rounded down."""
    d_model = check_positive_int("d_model", d_model)
    n_heads = check_positive_int("n_heads", n_heads)
    if n_heads > d_model:
        raise ValueError(
            f"n_heads must be at most d_model={d_model} so that each head keeps at least "
            f"one dimension; got n_heads={n_heads}."
        )
    split = d_model // n_heads
    return [
        (f"{n_heads} {plural(n_heads, 'head')} × {split}", n_heads, split),
        (f"1 head × {d_model}", 1, d_model),
        (f"{n_heads} full-size {plural(n_heads, 'head')} × {d_model}", n_heads, d_model),
    ]


def compare_layouts(
    d_model: int, n_heads: int, n_tokens: int, bias: bool = True
) -> list[LayoutCost]:
    """Cost of the three layouts for self-attention over `n_tokens` tokens."""
    n_tokens = check_positive_int("n_tokens", n_tokens)
    return [
        LayoutCost(label, h, d_head, attention_cost(d_model, h, d_head, n_tokens, bias=bias))
        for label, h, d_head in head_layouts(d_model, n_heads)
    ]


def cost_by_length(
    d_model: int, n_heads: int, lengths: Sequence[int], bias: bool = True
) -> dict[str, dict[str, np.ndarray]]:
    """For each layout label: projection and score multiply-adds at each sequence length."""
    if len(lengths) == 0:
        raise ValueError("lengths must hold at least one sequence length; got none.")
    per_length = [compare_layouts(d_model, n_heads, n, bias) for n in lengths]
    return {
        row.label: {
            "projection": np.array([rows[i].projection_macs for rows in per_length]),
            "score": np.array([rows[i].score_macs for rows in per_length]),
        }
        for i, row in enumerate(per_length[0])
    }


def lengths_around(n_tokens: int) -> list[int]:
    """The sequence lengths the cost-by-length chart plots: powers of two from 4 to
    2048, and the sentence's own length."""
    return sorted({2**k for k in range(2, 12)} | {n_tokens})
