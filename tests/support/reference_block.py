"""Plain LayerNorm, feed-forward and transformer blocks, written from the formulas with
loops and the standard library's math.erf, sharing no code with `attention/` (attention
itself comes from tests/support/reference.py), to check the blocks against."""

from __future__ import annotations

import math

import numpy as np

from tests.support.reference import reference_attention


def reference_layer_norm(x: np.ndarray, eps: float) -> np.ndarray:
    """Each row to mean 0 and variance 1 (biased variance, eps inside the root)."""
    out = np.zeros_like(x, dtype=np.float64)
    for i, row in enumerate(x):
        values = [float(v) for v in row]
        mean = sum(values) / len(values)
        variance = sum((v - mean) ** 2 for v in values) / len(values)
        out[i] = [(v - mean) / math.sqrt(variance + eps) for v in values]
    return out


def reference_gelu(value: float) -> float:
    return 0.5 * value * (1.0 + math.erf(value / math.sqrt(2.0)))


def reference_feed_forward(x, w_1, b_1, w_2, b_2, activation: str) -> dict[str, np.ndarray]:
    """hidden = act(x W_1 + b_1), output = hidden W_2 + b_2, element by element."""
    act = reference_gelu if activation == "gelu" else (lambda v: max(v, 0.0))
    pre = x @ w_1 + b_1
    hidden = np.array([[act(float(v)) for v in row] for row in pre])
    return {"hidden": hidden, "output": hidden @ w_2 + b_2}


def attention_weights_of(mha) -> dict[str, np.ndarray]:
    names = ("w_q", "w_k", "w_v", "w_o", "b_q", "b_k", "b_v", "b_o")
    return {n: np.asarray(getattr(mha, n), dtype=np.float64) for n in names}


def ffn_weights_of(ffn) -> dict[str, np.ndarray]:
    names = ("w_1", "b_1", "w_2", "b_2")
    return {n: np.asarray(getattr(ffn, n), dtype=np.float64) for n in names}


def reference_sublayer(stream, sublayer, norm: str, residual: bool, eps: float):
    """One sublayer with its residual and LayerNorm placed as `norm` says."""
    read = reference_layer_norm(stream, eps) if norm == "pre" else stream
    update = sublayer(read)
    out = stream + update if residual else update
    if norm == "post":
        out = reference_layer_norm(out, eps)
    return update, out


def reference_block(
    x: np.ndarray,
    attentions: list[tuple[dict, np.ndarray | None, bool]],
    ffn: dict | None,
    activation: str,
    norm: str,
    residual: bool,
    eps: float,
) -> list[tuple[np.ndarray, np.ndarray]]:
    """Attention sublayers given as (weights, context or None, causal), then the
    feed-forward; returns (update, stream after) per sublayer."""
    steps = []
    stream = np.asarray(x, dtype=np.float64)
    for weights, context, causal in attentions:
        n_q = stream.shape[0]
        n_k = n_q if context is None else context.shape[0]
        allowed = None
        if causal:
            tri = [[j <= i for j in range(n_k)] for i in range(n_q)]
            allowed = np.array([tri] * weights["w_q"].shape[0])

        def attend(h, weights=weights, context=context, allowed=allowed):
            return reference_attention(h, **weights, context=context, allowed=allowed)["output"]

        steps.append(reference_sublayer(stream, attend, norm, residual, eps))
        stream = steps[-1][1]
    if ffn is not None:

        def feed(h):
            return reference_feed_forward(h, **ffn, activation=activation)["output"]

        steps.append(reference_sublayer(stream, feed, norm, residual, eps))
    return steps
