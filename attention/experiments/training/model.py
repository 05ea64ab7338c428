"""A one-layer attention model with hand-written forward and backward passes in NumPy.

The query token attends over the whole sequence with the engine's MultiHeadAttention (no
biases), its output is added to the query's own vector (the residual), and a ReLU layer
reads out two answers:

    a = MHA(x_query, context=x),  r = x_query + a,  z = relu(r W1 + b1),
    logits = z W2 + b2 → (2, n_symbols),  loss = mean cross-entropy of the two answers.

With `sliced=True` head i reads only its own slice of the token vectors (see
attention.experiments.slicing): its W_Q, W_K, W_V rows outside that slice are zero and
never updated.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from attention import AttentionTrace, MultiHeadAttention
from attention.core.engine import masked_softmax
from attention.core.validation import check_positive_int
from attention.experiments.slicing import input_slices


@dataclass(frozen=True)
class Forward:
    """What the backward pass needs from one forward pass."""

    x: np.ndarray  # (B, n, d_model)
    trace: AttentionTrace  # one query (the last token) over all n tokens
    residual: np.ndarray  # (B, d_model)
    pre: np.ndarray  # (B, hidden) before the ReLU
    logits: np.ndarray  # (B, 2, n_symbols)

    @property
    def weights(self) -> np.ndarray:
        """The query's attention weights, (B, n_heads, n)."""
        return self.trace.weights[:, :, 0, :]


class TwoLookupModel:
    """Attention layer + ReLU read-out; parameters are plain float64 arrays updated in place."""

    PARAMETER_NAMES = ("w_q", "w_k", "w_v", "w_o", "w1", "b1", "w2", "b2")

    def __init__(
        self,
        d_model: int,
        n_heads: int,
        d_head: int,
        n_symbols: int,
        hidden: int = 64,
        sliced: bool = False,
        seed: int = 0,
    ) -> None:
        self.n_symbols = check_positive_int("n_symbols", n_symbols)
        hidden = check_positive_int("hidden", hidden)
        self.attention = MultiHeadAttention(
            d_model, n_heads, d_head, seed=seed, bias=False, dtype=np.float64
        )
        self.read_mask = None
        if sliced:
            self.read_mask = input_slices(d_model, n_heads)[:, :, None]
            # Each head keeps 1/h of its input rows; scale them up by √h so its queries,
            # keys and values start as large as an unsliced head's.
            for name in ("w_q", "w_k", "w_v"):
                full = getattr(self.attention, name)
                setattr(self.attention, name, full * np.sqrt(n_heads) * self.read_mask)
        rng = np.random.default_rng([seed, 1])
        self.w1 = rng.normal(scale=np.sqrt(2.0 / d_model), size=(d_model, hidden))
        self.b1 = np.zeros(hidden)
        self.w2 = rng.normal(scale=np.sqrt(1.0 / hidden), size=(hidden, 2 * self.n_symbols))
        self.b2 = np.zeros(2 * self.n_symbols)

    def parameters(self) -> list[np.ndarray]:
        """Writable arrays in PARAMETER_NAMES order (the W_Q/W_K/W_V are engine views)."""
        a = self.attention
        return [a.w_q, a.w_k, a.w_v, a.w_o, self.w1, self.b1, self.w2, self.b2]

    def masks(self) -> list[np.ndarray | None]:
        """Which entries may change: the read mask for sliced heads' W_Q, W_K, W_V."""
        return [self.read_mask] * 3 + [None] * 5

    def forward(self, x: np.ndarray) -> Forward:
        """Run the model on token vectors x (B, n, d_model); the last token is the query."""
        trace = self.attention(x[:, -1:, :], context=x)
        residual = x[:, -1, :] + trace.output[:, 0, :]
        pre = residual @ self.w1 + self.b1
        logits = np.maximum(pre, 0.0) @ self.w2 + self.b2
        return Forward(x, trace, residual, pre, logits.reshape(len(x), 2, self.n_symbols))

    def loss(self, forward: Forward, answers: np.ndarray) -> float:
        """Mean cross-entropy (nats) over the batch and the two answers."""
        logits = forward.logits
        shifted = logits - logits.max(axis=-1, keepdims=True)
        log_p = shifted - np.log(np.exp(shifted).sum(axis=-1, keepdims=True))
        picked = np.take_along_axis(log_p, answers[..., None], axis=-1)
        return float(-picked.mean())

    def gradients(self, forward: Forward, answers: np.ndarray) -> list[np.ndarray]:
        """d loss / d parameter, by hand, in PARAMETER_NAMES order."""
        f, a = forward, self.attention
        batch = len(f.x)
        d_logits = masked_softmax(f.logits) - np.eye(self.n_symbols)[answers]
        d_logits = d_logits.reshape(batch, -1) / (2 * batch)
        hidden = np.maximum(f.pre, 0.0)
        d_w2, d_b2 = hidden.T @ d_logits, d_logits.sum(axis=0)
        d_pre = (d_logits @ self.w2.T) * (f.pre > 0)
        d_w1, d_b1 = f.residual.T @ d_pre, d_pre.sum(axis=0)
        d_out = d_pre @ self.w1.T  # (B, d_model): the residual passes it to the attention

        tr = f.trace
        concat = tr.concat[:, 0, :]  # (B, h·d_head)
        d_w_o = concat.T @ d_out
        d_heads = (d_out @ a.w_o.T).reshape(batch, a.n_heads, a.d_head)
        weights = f.weights  # (B, h, n)
        q = tr.q[:, :, 0, :]  # (B, h, d_head), before the 1/√d_head scale
        d_weights = np.einsum("bhne,bhe->bhn", tr.v, d_heads)
        d_v = weights[..., None] * d_heads[:, :, None, :]
        d_scores = weights * (d_weights - (weights * d_weights).sum(axis=-1, keepdims=True))
        d_scores *= 1.0 / np.sqrt(a.d_head)
        d_q = np.einsum("bhn,bhne->bhe", d_scores, tr.k)
        d_k = d_scores[..., None] * q[:, :, None, :]
        x_query = f.x[:, -1, :]
        d_w_q = np.einsum("bd,bhe->hde", x_query, d_q)
        d_w_k = np.tensordot(f.x, d_k, axes=([0, 1], [0, 2])).transpose(1, 0, 2)
        d_w_v = np.tensordot(f.x, d_v, axes=([0, 1], [0, 2])).transpose(1, 0, 2)
        return [d_w_q, d_w_k, d_w_v, d_w_o, d_w1, d_b1, d_w2, d_b2]

    def predict(self, x: np.ndarray) -> np.ndarray:
        """The two predicted symbols (B, 2)."""
        return self.forward(x).logits.argmax(axis=-1)
