"""Multi-head attention in NumPy, returning every intermediate so each step can be drawn.

For each head h:  q_h = x W_Q[h] + b_Q[h],  k_h = c W_K[h] + b_K[h],  v_h = c W_V[h] + b_V[h]
(c is the context: x itself for self-attention), scores_h = q_h k_hᵀ / (√d_head · T),
weights_h = softmax over keys, heads_h = weights_h v_h; the heads are concatenated
(head 0 first) and mixed by W_O.  The three projections are stored as one fused
d_model × 3·h·d_head matrix so a forward pass is one large matmul; `w_q`, `w_k`, `w_v`
are writable per-head views into it.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from attention.core.cost import AttentionCost, attention_cost
from attention.core.linear import rows_times
from attention.core.validation import (
    check_array,
    check_positive_float,
    check_tokens,
    check_unit_interval,
    resolve_d_head,
)

ALLOWED_DTYPES = (np.float32, np.float64)
_SOFTMAX_BLOCK = 1 << 18  # elements per softmax block: ~1 MB of float32, fits in L2
_PER_MAP_FROM = 1 << 14  # maps this large are computed one at a time (cache reuse)


@dataclass(frozen=True)
class AttentionTrace:
    """Every intermediate of one forward pass; shapes as in the engine contract."""

    q: np.ndarray  # (..., n_heads, n_q, d_head)
    k: np.ndarray  # (..., n_heads, n_k, d_head)
    v: np.ndarray  # (..., n_heads, n_k, d_head)
    scores: np.ndarray  # (..., n_heads, n_q, n_k), before masking
    weights: np.ndarray  # (..., n_heads, n_q, n_k), rows sum to 1 (0 when fully masked)
    heads: np.ndarray  # (..., n_heads, n_q, d_head)
    concat: np.ndarray  # (..., n_q, n_heads * d_head)
    output: np.ndarray  # (..., n_q, d_model)
    mask: np.ndarray | None  # boolean, broadcastable to weights; True = may attend


def causal_mask(n_q: int, n_k: int | None = None) -> np.ndarray:
    """Boolean (n_q, n_k) mask where query i may attend to keys j <= i."""
    n_k = n_q if n_k is None else n_k
    return np.tri(n_q, n_k, dtype=bool)


def masked_softmax(
    scores: np.ndarray, allowed: np.ndarray | None = None, out: np.ndarray | None = None
) -> np.ndarray:
    """Softmax over the last axis, ignoring entries where `allowed` is False.

    Stable for any finite scores; a row with no allowed entry comes out all zero
    instead of NaN. Works through blocks of rows small enough to stay in cache.
    Writes into `out` (same shape as scores) when given.
    """
    n_k = scores.shape[-1]
    raw = np.ascontiguousarray(scores).reshape(-1, n_k)
    weights = np.empty_like(scores) if out is None else out
    if allowed is None:
        source = raw
    else:
        np.copyto(weights, np.where(allowed, scores, -np.inf))
        source = weights.reshape(-1, n_k)
    rows = weights.reshape(-1, n_k)
    # exp() of anything within ±limit and sums of such terms are normal floats, so
    # blocks whose scores stay inside need no shift by their row maximum.
    limit = np.log(np.finfo(scores.dtype).max) / 2
    block = max(1, _SOFTMAX_BLOCK // n_k)
    for start in range(0, rows.shape[0], block):
        part = slice(start, start + block)
        _softmax_block(raw[part], source[part], rows[part], limit)
    return weights


def _softmax_block(raw: np.ndarray, source: np.ndarray, out: np.ndarray, limit: float) -> None:
    """Row softmax of `source` (raw scores, -inf where masked) into `out`."""
    low, high = raw.min(), raw.max()
    if not np.isfinite(low) or not np.isfinite(high):
        raise ValueError(
            "scores overflowed the floating-point range; use float64 or smaller inputs."
        )
    if -limit < low and high < limit:
        np.exp(source, out=out)
    else:
        row_max = source.max(axis=1, keepdims=True)
        row_max[np.isneginf(row_max)] = 0.0
        np.subtract(source, row_max, out=out)
        np.exp(out, out=out)
    total = (out @ np.ones(out.shape[1], out.dtype))[:, None]  # BLAS: 3x faster than .sum
    total[total == 0] = 1.0
    out /= total


class MultiHeadAttention:
    """h attention heads, each with its own W_Q, W_K, W_V (d_model × d_head), and W_O.

    Weights are drawn with Glorot/Xavier uniform initialisation from `seed`, biases
    like `nn.Linear` (uniform ±1/√fan_in), always in float64 first so the same seed
    gives the same model in float32 and float64.
    """

    def __init__(
        self,
        d_model: int,
        n_heads: int,
        d_head: int | None = None,
        seed: int | None = 0,
        bias: bool = True,
        dtype: type = np.float32,
    ) -> None:
        self.d_head = resolve_d_head(d_model, n_heads, d_head)
        self.d_model, self.n_heads = int(d_model), int(n_heads)
        self.dtype = _check_dtype(dtype)
        self.bias = bool(bias)

        rng = np.random.default_rng(seed)
        width = self.n_heads * self.d_head
        in_limit = np.sqrt(6.0 / (self.d_model + width))
        w_qkv = rng.uniform(-in_limit, in_limit, size=(self.d_model, 3 * width))
        w_o = rng.uniform(-in_limit, in_limit, size=(width, self.d_model))
        b_qkv = rng.uniform(-1, 1, size=3 * width) / np.sqrt(self.d_model)
        b_o = rng.uniform(-1, 1, size=self.d_model) / np.sqrt(width)
        if not self.bias:
            b_qkv[:] = 0.0
            b_o[:] = 0.0
        self._w_qkv = w_qkv.astype(self.dtype)
        self._b_qkv = b_qkv.astype(self.dtype)
        self.w_o = w_o.astype(self.dtype)
        self.b_o = b_o.astype(self.dtype)

    @classmethod
    def from_weights(
        cls,
        w_q: np.ndarray,
        w_k: np.ndarray,
        w_v: np.ndarray,
        w_o: np.ndarray,
        b_q: np.ndarray | None = None,
        b_k: np.ndarray | None = None,
        b_v: np.ndarray | None = None,
        b_o: np.ndarray | None = None,
        dtype: type | None = None,
    ) -> MultiHeadAttention:
        """Build from given arrays: w_q/w_k/w_v (n_heads, d_model, d_head), w_o
        (n_heads·d_head, d_model), biases (n_heads, d_head) and (d_model,) or None (zero).
        The dtype defaults to the weights' own (float32 or float64)."""
        w_q = np.asarray(w_q)
        if w_q.ndim != 3:
            raise ValueError(
                f"w_q must have shape (n_heads, d_model, d_head); got shape {w_q.shape}."
            )
        n_heads, d_model, d_head = w_q.shape
        if dtype is None:
            dtype = np.result_type(w_q, w_k, w_v, w_o, np.float32)
        mha = cls(d_model, n_heads, d_head, seed=0, bias=False, dtype=dtype)
        mha.w_q, mha.w_k, mha.w_v = w_q, w_k, w_v
        mha.w_o = check_array("w_o", w_o, (n_heads * d_head, d_model), mha.dtype)
        biases = {"b_q": b_q, "b_k": b_k, "b_v": b_v, "b_o": b_o}
        for name, value in biases.items():
            if value is not None:
                setattr(mha, name, value)
        mha.bias = any(value is not None for value in biases.values())
        return mha

    # Per-head views into the fused projection matrix and bias.
    def _block(self, index: int) -> slice:
        width = self.n_heads * self.d_head
        return slice(index * width, (index + 1) * width)

    def _weight_view(self, index: int) -> np.ndarray:
        block = self._w_qkv[:, self._block(index)]
        return block.reshape(self.d_model, self.n_heads, self.d_head).transpose(1, 0, 2)

    def _bias_view(self, index: int) -> np.ndarray:
        return self._b_qkv[self._block(index)].reshape(self.n_heads, self.d_head)

    def _set_weight(self, index: int, name: str, value: np.ndarray) -> None:
        shape = (self.n_heads, self.d_model, self.d_head)
        self._weight_view(index)[...] = check_array(name, value, shape, self.dtype)

    def _set_bias(self, index: int, name: str, value: np.ndarray) -> None:
        shape = (self.n_heads, self.d_head)
        self._bias_view(index)[...] = check_array(name, value, shape, self.dtype)

    w_q = property(lambda s: s._weight_view(0), lambda s, v: s._set_weight(0, "w_q", v))
    w_k = property(lambda s: s._weight_view(1), lambda s, v: s._set_weight(1, "w_k", v))
    w_v = property(lambda s: s._weight_view(2), lambda s, v: s._set_weight(2, "w_v", v))
    b_q = property(lambda s: s._bias_view(0), lambda s, v: s._set_bias(0, "b_q", v))
    b_k = property(lambda s: s._bias_view(1), lambda s, v: s._set_bias(1, "b_k", v))
    b_v = property(lambda s: s._bias_view(2), lambda s, v: s._set_bias(2, "b_v", v))

    @property
    def b_o(self) -> np.ndarray:
        return self._b_o

    @b_o.setter
    def b_o(self, value: np.ndarray) -> None:
        self._b_o = check_array("b_o", value, (self.d_model,), self.dtype)

    def cost(self, n_q: int, n_k: int | None = None) -> AttentionCost:
        """Parameters and multiply-adds of one forward pass over n_q queries, n_k keys."""
        return attention_cost(self.d_model, self.n_heads, self.d_head, n_q, n_k, self.bias)

    def __repr__(self) -> str:
        return (
            f"MultiHeadAttention(d_model={self.d_model}, n_heads={self.n_heads}, "
            f"d_head={self.d_head}, bias={self.bias}, dtype={np.dtype(self.dtype).name})"
        )

    def __call__(
        self,
        x: np.ndarray,
        context: np.ndarray | None = None,
        mask: np.ndarray | None = None,
        causal: bool = False,
        temperature: float = 1.0,
        head_mask: np.ndarray | None = None,
    ) -> AttentionTrace:
        """Run attention of x (..., n_q, d_model) over context (..., n_k, d_model),
        or over x itself when context is None.

        `head_mask` (bool, or numbers in [0, 1]; broadcastable to (..., n_heads)) scales
        each head's output, its weighted sum of values, before W_O: 0 switches a head off
        (its block of `heads` and `concat` is zeros, exactly what multiplying its weights
        by 0 would give), while `weights` still holds the map the head computed. None or
        all ones changes nothing, bit for bit.
        """
        x = self._as_input("x", x)
        temperature = check_positive_float("temperature", temperature)
        h, d_head, width = self.n_heads, self.d_head, self.n_heads * self.d_head
        if context is None:
            n_k, batch = x.shape[-2], x.shape[:-2]
        else:
            context = self._as_input("context", context)
            n_k = context.shape[-2]
            batch = _broadcast_batch(x.shape[:-2], context.shape[:-2])
        n_q = x.shape[-2]
        allowed = _allowed(mask, causal, (*batch, h, n_q, n_k))
        head_scale = _head_scale(head_mask, (*batch, h), self.dtype)

        if context is None:
            qkv = rows_times(x, self._w_qkv)
            if self.bias:
                qkv += self._b_qkv
            qkv = qkv.reshape(*x.shape[:-1], 3, h, d_head)
            q, k, v = (qkv[..., i, :, :] for i in range(3))
        else:
            q = rows_times(x, self._w_qkv[:, :width])
            kv = rows_times(context, self._w_qkv[:, width:])
            if self.bias:
                q += self._b_qkv[:width]
                kv += self._b_qkv[width:]
            q = q.reshape(*x.shape[:-1], h, d_head)
            kv = kv.reshape(*context.shape[:-1], 2, h, d_head)
            k, v = kv[..., 0, :, :], kv[..., 1, :, :]
        q, k, v = (np.swapaxes(a, -2, -3) for a in (q, k, v))

        scale = 1.0 / (np.sqrt(d_head) * temperature)
        q_scaled = q * self.dtype(scale)
        k_t = np.swapaxes(k, -1, -2)
        maps = (*batch, h, n_q, n_k)
        scores = np.empty(maps, dtype=self.dtype)
        weights = np.empty(maps, dtype=self.dtype)
        # Each head's output goes straight into its column block of the concatenation.
        concat = np.empty((*batch, n_q, h, d_head), dtype=self.dtype)
        heads = np.swapaxes(concat, -2, -3)
        if n_q * n_k < _PER_MAP_FROM:
            np.matmul(q_scaled, k_t, out=scores)
            masked_softmax(scores, allowed, out=weights)
            np.matmul(weights, v, out=heads)
        else:  # one map at a time: it stays in cache from its scores to its weighted sum
            q_all = np.broadcast_to(q_scaled, (*maps[:-1], d_head))
            k_all = np.broadcast_to(k_t, (*maps[:-2], d_head, n_k))
            v_all = np.broadcast_to(v, (*maps[:-2], n_k, d_head))
            mask_all = None if allowed is None else np.broadcast_to(allowed, maps)
            for i in np.ndindex(*maps[:-2]):
                np.matmul(q_all[i], k_all[i], out=scores[i])
                masked_softmax(scores[i], None if mask_all is None else mask_all[i], weights[i])
                np.matmul(weights[i], v_all[i], out=heads[i])
        if head_scale is not None:
            concat *= head_scale[..., None, :, None]  # (..., n_q, h, d_head)
        concat = concat.reshape(*concat.shape[:-2], width)
        output = rows_times(concat, self.w_o)
        if self.bias:
            output += self._b_o
        return AttentionTrace(q, k, v, scores, weights, heads, concat, output, allowed)

    def _as_input(self, name: str, array: np.ndarray) -> np.ndarray:
        array = check_tokens(name, array, self.d_model, self.dtype)
        if array.shape[-2] < 1:
            raise ValueError(f"{name} must hold at least one token; got shape {array.shape}.")
        return array


def _allowed(
    mask: np.ndarray | None, causal: bool, weights_shape: tuple[int, ...]
) -> np.ndarray | None:
    """Combine a user mask and the causal mask into one boolean mask (or None)."""
    allowed = None
    if mask is not None:
        allowed = np.asarray(mask)
        if allowed.dtype != bool:
            raise ValueError(
                f"mask must be a boolean array (True = may attend); got dtype {allowed.dtype}."
            )
        try:
            fits = np.broadcast_shapes(allowed.shape, weights_shape) == weights_shape
        except ValueError:
            fits = False
        if not fits:
            raise ValueError(
                f"mask must be broadcastable to the weights' shape {weights_shape} "
                f"(..., n_heads, n_q, n_k); got shape {allowed.shape}."
            )
    if causal:
        tri = causal_mask(weights_shape[-2], weights_shape[-1])
        allowed = tri if allowed is None else allowed & tri
    return allowed


def _head_scale(
    head_mask: np.ndarray | None, shape: tuple[int, ...], dtype: type
) -> np.ndarray | None:
    """`head_mask` checked (values in [0, 1], broadcastable to `shape` = (..., n_heads))
    and cast to `dtype`; None when it would change nothing (None or all ones)."""
    if head_mask is None:
        return None
    mask_shape = np.shape(head_mask)
    try:
        fits = np.broadcast_shapes(mask_shape, shape) == shape
    except ValueError:
        fits = False
    if not fits:
        raise ValueError(
            f"head_mask must be broadcastable to {shape} (..., n_heads); got shape {mask_shape}."
        )
    scale = check_unit_interval("head_mask", head_mask, f"{shape} (..., n_heads)", dtype)
    return None if np.all(scale == 1) else scale


def _broadcast_batch(x_batch: tuple[int, ...], c_batch: tuple[int, ...]) -> tuple[int, ...]:
    try:
        return np.broadcast_shapes(x_batch, c_batch)
    except ValueError:
        raise ValueError(
            f"context's leading (batch) dimensions must broadcast with x's; "
            f"got x batch {x_batch} and context batch {c_batch}."
        ) from None


def _check_dtype(dtype: type) -> type:
    try:
        resolved = np.dtype(dtype).type
    except TypeError:
        resolved = None
    if resolved not in ALLOWED_DTYPES:
        raise ValueError(f"dtype must be numpy.float32 or numpy.float64; got {dtype!r}.")
    return resolved
