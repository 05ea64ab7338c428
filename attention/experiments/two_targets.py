"""§2 "One distribution per head": can one head fetch two tokens at full strength?

A head gives the query one softmax distribution w over the keys, so the weights it puts on
two targets a and b share one unit of mass: w_a + w_b ≤ 1. We fit W_Q and W_K (hand-written
gradients, Adam) to minimise the same objective for one head and for two heads,

    loss = -½ (log w_a + log w_b),

where for two heads w_a is head 1's weight on a and w_b head 2's weight on b. One head can
never go below log 2 (w_a = w_b = ½); two heads can approach 0 (each puts ≈1 on its target).
For equal cost the two heads get d_model // 2 dimensions each, the one head d_model.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from attention.core.engine import masked_softmax
from attention.core.validation import (
    check_finite_array,
    check_int_in_range,
    check_positive_float,
    check_positive_int,
)
from attention.experiments.adam import Adam

ONE_HEAD_FLOOR = float(np.log(2.0))  # -½(log ½ + log ½): the best one head can do


@dataclass(frozen=True)
class TwoTargetResult:
    """Weights per key after fitting, and the loss after every step."""

    query: int
    targets: tuple[int, int]
    one_head: np.ndarray  # (n,) the single head's weights for the query
    two_heads: np.ndarray  # (2, n) head 1 aims at targets[0], head 2 at targets[1]
    one_head_loss: np.ndarray  # (steps,)
    two_heads_loss: np.ndarray  # (steps,)
    d_heads: tuple[int, int]  # d_head of the one head, and of each of the two heads

    @property
    def one_head_fetch(self) -> tuple[float, float]:
        """Weight the single head puts on each target."""
        a, b = self.targets
        return float(self.one_head[a]), float(self.one_head[b])

    @property
    def two_heads_fetch(self) -> tuple[float, float]:
        """Weight head 1 puts on the first target and head 2 on the second."""
        a, b = self.targets
        return float(self.two_heads[0, a]), float(self.two_heads[1, b])


def fit_two_targets(
    x: np.ndarray,
    query: int,
    targets: tuple[int, int],
    steps: int = 300,
    lr: float | None = None,
    seed: int = 0,
) -> TwoTargetResult:
    """Fit one head (d_head = d_model) and two heads (d_head = d_model // 2 each) to put
    the query's weight on both targets of the token vectors x (n, d_model).

    x is scaled to unit root-mean-square first (W_Q, W_K absorb any common scale), and
    the learning rate defaults to 0.08/√d_model: every one of the d_model input rows
    moves by about lr per Adam step, so this keeps the scores' steps the same size."""
    x = np.asarray(x, dtype=np.float64)
    if x.ndim != 2 or x.shape[0] < 2:
        raise ValueError(f"x must have shape (n_tokens >= 2, d_model); got shape {x.shape}.")
    check_finite_array("x", x)
    n, d_model = x.shape
    query = check_int_in_range("query", query, 0, n - 1)
    if len(targets) != 2:
        raise ValueError(f"targets must be two token indices; got {targets!r}.")
    a, b = (check_int_in_range("targets", t, 0, n - 1) for t in targets)
    if a == b:
        raise ValueError(f"targets must be two different token indices; got {a} and {b}.")
    steps = check_positive_int("steps", steps)
    lr = 0.08 / np.sqrt(d_model) if lr is None else check_positive_float("lr", lr)
    rms = np.sqrt(np.mean(x**2))
    if rms == 0:
        raise ValueError("x must not be all zeros: there is nothing to attend by.")
    x = x / rms

    aim_one = np.zeros((1, n))
    aim_one[0, [a, b]] = 0.5
    aim_two = np.zeros((2, n))
    aim_two[0, a] = aim_two[1, b] = 0.5
    rng = np.random.default_rng(seed)
    d_heads = (d_model, max(1, d_model // 2))
    one_weights, one_loss = _fit(x, query, aim_one, d_heads[0], steps, lr, rng)
    two_weights, two_loss = _fit(x, query, aim_two, d_heads[1], steps, lr, rng)
    return TwoTargetResult(query, (a, b), one_weights[0], two_weights, one_loss, two_loss, d_heads)


def same_vector(x: np.ndarray, a: int, b: int) -> bool:
    """Whether tokens a and b of x (n, d_model) have the same vector (to rounding): then
    every head gives them the same score, so no head can fetch one without the other."""
    return bool(np.allclose(x[a], x[b]))


def _fit(
    x: np.ndarray,
    query: int,
    aim: np.ndarray,
    d_head: int,
    steps: int,
    lr: float,
    rng: np.random.Generator,
) -> tuple[np.ndarray, np.ndarray]:
    """Fit each head's W_Q, W_K (heads, d_model, d_head) with Adam on `objective`.

    Returns the final weights (heads, n) and the loss after each step."""
    n_heads, d_model = aim.shape[0], x.shape[1]
    w_q = rng.normal(scale=d_model**-0.5, size=(n_heads, d_model, d_head))
    w_k = rng.normal(scale=d_model**-0.5, size=(n_heads, d_model, d_head))
    optimiser = Adam([w_q, w_k], lr=lr)
    losses = np.empty(steps)
    for step in range(steps):
        losses[step], grads, _ = objective(x, query, aim, w_q, w_k)
        optimiser.step(grads)
    return objective(x, query, aim, w_q, w_k)[2], losses


def objective(
    x: np.ndarray, query: int, aim: np.ndarray, w_q: np.ndarray, w_k: np.ndarray
) -> tuple[float, list[np.ndarray], np.ndarray]:
    """-Σ_h Σ_j aim[h, j] log w_h[j] for the query's weights w_h under each head's W_Q, W_K
    (heads, d_model, d_head); returns the loss, its gradients [d W_Q, d W_K] and the
    weights (heads, n)."""
    scale = w_q.shape[-1] ** -0.5
    q = x[query] @ w_q  # (heads, d_head)
    k = x @ w_k  # (heads, n, d_head)
    scores = np.einsum("he,hne->hn", q, k) * scale
    weights = masked_softmax(scores)
    loss = float(-np.sum(aim * _log_softmax(scores)))
    d_scores = (aim.sum(axis=1, keepdims=True) * weights - aim) * scale  # (heads, n)
    d_q = np.einsum("hn,hne->he", d_scores, k)
    d_k = d_scores[:, :, None] * q[:, None, :]
    grads = [np.einsum("d,he->hde", x[query], d_q), np.einsum("nd,hne->hde", x, d_k)]
    return loss, grads, weights


def _log_softmax(scores: np.ndarray) -> np.ndarray:
    """log of the softmax over the last axis, finite even where the weight rounds to 0."""
    shifted = scores - scores.max(axis=-1, keepdims=True)
    return shifted - np.log(np.exp(shifted).sum(axis=-1, keepdims=True))
