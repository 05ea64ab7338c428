"""What one multi-head attention layer costs: parameters and multiply-adds, by part.

The score and weighted-sum parts grow with n_q · n_k; the projections only with the
number of tokens. h heads of d_model/h cost the same as one head of d_model.
"""

from __future__ import annotations

from dataclasses import dataclass

from attention.core.validation import check_positive_int, resolve_d_head


@dataclass(frozen=True)
class AttentionCost:
    """Parameter and multiply-add (MAC) counts of one forward pass, split by part."""

    params_qkv: int
    params_output: int
    macs_qkv: int
    macs_scores: int
    macs_weighted_sum: int
    macs_output: int
    softmax_exps: int

    @property
    def params(self) -> int:
        return self.params_qkv + self.params_output

    @property
    def macs(self) -> int:
        return self.macs_qkv + self.macs_scores + self.macs_weighted_sum + self.macs_output

    def parts(self) -> dict[str, int]:
        """Multiply-adds by part, in the order of the forward pass."""
        return {
            "Q/K/V projections": self.macs_qkv,
            "scores q·k": self.macs_scores,
            "weighted sum of values": self.macs_weighted_sum,
            "output projection W_O": self.macs_output,
        }


def attention_cost(
    d_model: int,
    n_heads: int,
    d_head: int | None = None,
    n_q: int = 1,
    n_k: int | None = None,
    bias: bool = True,
) -> AttentionCost:
    """Count parameters and multiply-adds for n_q queries attending over n_k keys
    (n_k defaults to n_q: self-attention)."""
    d_head = resolve_d_head(d_model, n_heads, d_head)
    n_q = check_positive_int("n_q", n_q)
    n_k = n_q if n_k is None else check_positive_int("n_k", n_k)
    width = n_heads * d_head
    return AttentionCost(
        params_qkv=3 * d_model * width + (3 * width if bias else 0),
        params_output=width * d_model + (d_model if bias else 0),
        macs_qkv=(n_q + 2 * n_k) * d_model * width,
        macs_scores=n_heads * n_q * n_k * d_head,
        macs_weighted_sum=n_heads * n_q * n_k * d_head,
        macs_output=n_q * width * d_model,
        softmax_exps=n_heads * n_q * n_k,
    )
