"""Attention rollout (Abnar & Zuidema, 2020): follow attention through the layers.

Raw attention in an upper layer mixes vectors that earlier layers already mixed, so it
says little about which *input* tokens a token draws on. Rollout models each layer as
its head-mean attention plus the residual connection, Â_l = r·I + (1 − r)·mean_h A_l
(rows renormalised), and multiplies from the first layer up: R_l = Â_l · R_(l−1).
Row i of R_l says how much of token i's vector after layer l comes from each input token.
"""

from __future__ import annotations

import numbers

import numpy as np

from attention.core.validation import check_finite_array


def attention_rollout(attentions: np.ndarray, residual: float = 0.5) -> np.ndarray:
    """(layers, heads, n, n) attention weights → (layers, n, n) rollout, float64, every
    row summing to 1. `residual` in [0, 1] is the weight of the identity (the skip
    connection); 0.5 is the paper's choice."""
    if (
        isinstance(residual, bool)
        or not isinstance(residual, numbers.Real)
        or not 0 <= residual <= 1
    ):
        raise ValueError(f"residual must be a number in [0, 1]; got {residual!r}.")
    weights = np.asarray(attentions, dtype=np.float64)
    if weights.ndim != 4 or weights.shape[-1] != weights.shape[-2] or min(weights.shape) < 1:
        raise ValueError(
            "attentions must have shape (layers, heads, n, n) with square maps and at "
            f"least one layer, head and token; got shape {weights.shape}."
        )
    check_finite_array("attentions", weights)
    if (weights < 0).any():
        raise ValueError(
            "attentions must be attention weights (no negative values); got a minimum "
            f"of {weights.min():.3g}."
        )
    n = weights.shape[-1]
    mixed = (1 - residual) * weights.mean(axis=1) + residual * np.eye(n)
    totals = mixed.sum(axis=-1, keepdims=True)
    if (totals <= 0).any():
        raise ValueError(
            "residual must be > 0 when a query row has no attention at all (its rollout "
            f"row is undefined); got residual={residual!r}."
        )
    mixed /= totals
    rollout = np.empty_like(mixed)
    rollout[0] = mixed[0]
    for layer in range(1, len(mixed)):
        rollout[layer] = mixed[layer] @ rollout[layer - 1]
    return rollout
