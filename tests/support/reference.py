"""A deliberately plain multi-head attention, written from the formulas with explicit
loops and no code shared with `attention/`, to check the engine against."""

from __future__ import annotations

import math

import numpy as np


def softmax_row(scores: list[float], allowed: list[bool]) -> list[float]:
    """Softmax of one row over the allowed entries; all zeros when none is allowed."""
    kept = [s for s, a in zip(scores, allowed, strict=True) if a]
    if not kept:
        return [0.0] * len(scores)
    top = max(kept)
    exps = [math.exp(s - top) if a else 0.0 for s, a in zip(scores, allowed, strict=True)]
    total = sum(exps)
    return [e / total for e in exps]


def reference_attention(
    x: np.ndarray,
    w_q: np.ndarray,
    w_k: np.ndarray,
    w_v: np.ndarray,
    w_o: np.ndarray,
    b_q: np.ndarray,
    b_k: np.ndarray,
    b_v: np.ndarray,
    b_o: np.ndarray,
    context: np.ndarray | None = None,
    allowed: np.ndarray | None = None,
    temperature: float = 1.0,
) -> dict[str, np.ndarray]:
    """Attention for one unbatched sequence, head by head and row by row, in float64.

    `allowed` is a full (n_heads, n_q, n_k) boolean array or None.
    """
    context = x if context is None else context
    n_heads, _, d_head = w_q.shape
    n_q, n_k = x.shape[0], context.shape[0]
    weights = np.zeros((n_heads, n_q, n_k))
    heads = np.zeros((n_heads, n_q, d_head))
    for h in range(n_heads):
        q = x @ w_q[h] + b_q[h]
        k = context @ w_k[h] + b_k[h]
        v = context @ w_v[h] + b_v[h]
        for i in range(n_q):
            row = [float(q[i] @ k[j]) / math.sqrt(d_head) / temperature for j in range(n_k)]
            mask_row = [True] * n_k if allowed is None else list(allowed[h, i])
            weights[h, i] = softmax_row(row, mask_row)
            heads[h, i] = sum(weights[h, i, j] * v[j] for j in range(n_k))
    concat = np.concatenate([heads[h] for h in range(n_heads)], axis=1)
    return {"weights": weights, "heads": heads, "output": concat @ w_o + b_o}
