"""The residual's other job: carrying the gradient back to the first layer. Back-
propagation by hand through the rank-collapse stacks' attention layers (pre-LN, no
feed-forward), with and without the residual connection.

The loss is L = Σ G ⊙ X_L for a fixed seeded G, so ∂L/∂X_L = G; the size that reaches
the first layer is ‖∂L/∂X_0‖_F / ‖G‖_F. Without the residual the only path back goes
through every softmax average and LayerNorm; with it, the identity path adds G itself
at every layer.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from attention.analysis.rank_collapse import seeded_layers
from attention.core.blocks import EncoderBlock, SublayerTrace
from attention.core.engine import AttentionTrace, MultiHeadAttention
from attention.core.layers import LayerNormTrace


def attention_backward(
    mha: MultiHeadAttention, trace: AttentionTrace, upstream: np.ndarray, temperature: float = 1.0
) -> np.ndarray:
    """∂L/∂x (n, d_model) of self-attention over x without a mask, given its trace on x
    and ∂L/∂output `upstream` (n, d_model)."""
    heads, n, d_head = trace.q.shape
    d_concat = (upstream @ mha.w_o.T).reshape(n, heads, d_head).transpose(1, 0, 2)
    weights = trace.weights
    d_weights = d_concat @ trace.v.transpose(0, 2, 1)
    d_v = weights.transpose(0, 2, 1) @ d_concat
    d_scores = weights * (d_weights - (d_weights * weights).sum(axis=-1, keepdims=True))
    d_scores = d_scores / (np.sqrt(d_head) * temperature)
    d_q = d_scores @ trace.k
    d_k = d_scores.transpose(0, 2, 1) @ trace.q
    return sum(
        np.einsum("hne,hde->nd", grad, w)
        for grad, w in ((d_q, mha.w_q), (d_k, mha.w_k), (d_v, mha.w_v))
    )


def layer_norm_backward(
    trace: LayerNormTrace, gain: np.ndarray, upstream: np.ndarray
) -> np.ndarray:
    """∂L/∂x of LayerNorm given its trace and ∂L/∂output (..., n, d)."""
    d_norm = upstream * gain
    n = trace.normalised
    inner = (d_norm * n).mean(axis=-1, keepdims=True)
    return (d_norm - d_norm.mean(axis=-1, keepdims=True) - n * inner) / trace.std


def _sublayer_backward(
    block: EncoderBlock, step: SublayerTrace, upstream: np.ndarray, temperature: float
) -> np.ndarray:
    through = attention_backward(block.self_attention, step.detail, upstream, temperature)
    through = layer_norm_backward(step.norm, block.norms[0].gain, through)
    return upstream + through if block.residual else through


def input_gradient(
    blocks: list[EncoderBlock], x: np.ndarray, upstream: np.ndarray, temperature: float = 1.0
) -> np.ndarray:
    """∂L/∂x (n, d_model) of pre-LN attention-only blocks applied in turn to x, given
    ∂L/∂(the last block's output) `upstream`."""
    steps = []
    state = np.asarray(x, dtype=np.float64)
    for block in blocks:
        step = block(state, temperature=temperature).sublayers[0]
        steps.append(step)
        state = step.stream_out
    grad = np.asarray(upstream, dtype=np.float64)
    for block, step in zip(reversed(blocks), reversed(steps), strict=True):
        grad = _sublayer_backward(block, step, grad, temperature)
    return grad


@dataclass(frozen=True)
class GradientFlow:
    """‖∂L/∂X_0‖ / ‖∂L/∂X_depth‖ through `depth` layers, with and without the residual."""

    depth: int
    with_residual: float
    without_residual: float


def gradient_flow(
    x: np.ndarray,
    depth: int,
    n_heads: int,
    d_head: int | None,
    seed: int | None = 0,
    temperature: float = 1.0,
) -> GradientFlow:
    """The gradient's size at the first layer of the rank-collapse stacks (same seeded
    layers, attention only) for tokens x (n, d_model), relative to its size at the top."""
    x = np.asarray(x, dtype=np.float64)
    layers = seeded_layers(x.shape[1], depth, n_heads, d_head, "pre", seed)
    upstream = np.random.default_rng([0 if seed is None else seed, 7]).standard_normal(x.shape)
    sizes = []
    for residual in (True, False):
        blocks = [EncoderBlock(layer.self_attention, None, "pre", residual) for layer in layers]
        grad = input_gradient(blocks, x, upstream, temperature)
        sizes.append(float(np.linalg.norm(grad) / np.linalg.norm(upstream)))
    return GradientFlow(depth, *sizes)
