"""§3 "The rank limit of a head": fit one head's W_Q, W_K to a target attention pattern.

A head's scores S = X W_Q W_Kᵀ Xᵀ / √d_head have rank at most d_head, and softmax only adds
one number per row, so a head smaller than the sequence cannot express every pattern
(Bhojanapalli et al., 2020). For n fixed seeded token vectors X we fit W_Q, W_K by
gradient descent (Adam, hand-written gradients) for every d_head = 1 … max_d_head at once,
and report the best error of a few restarts and the singular values of the fitted S.
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

PATTERNS = {
    "permutation": "a random permutation: each token attends to one other token",
    "previous": "attend to the previous token (the first token attends to itself)",
    "soft": "a random soft pattern: each row a Dirichlet(1) draw over all tokens",
}
MAX_TOKENS = 32


@dataclass(frozen=True)
class RankLimitResult:
    """Best fit for each d_head = 1 … max_d_head (row r is d_head = r + 1)."""

    target: np.ndarray  # (n, n) row-stochastic
    d_heads: np.ndarray  # (m,) 1 … max_d_head
    error: np.ndarray  # (m,) mean over rows of KL(target row ‖ fitted row), nats
    misplaced: np.ndarray  # (m,) mean over rows of ½ Σ |target − fitted|: share misplaced
    fitted: np.ndarray  # (m, n, n) the fitted attention patterns
    singular_values: np.ndarray  # (m, n) of the fitted score matrix, largest first
    loss_curves: np.ndarray  # (m, steps) error after each step, best restart


def target_pattern(kind: str, n: int, seed: int = 0) -> np.ndarray:
    """An (n, n) row-stochastic target of one of the PATTERNS kinds, drawn from `seed`."""
    n = _check_n(n)
    rng = np.random.default_rng(seed)
    if kind == "permutation":
        return np.eye(n)[rng.permutation(n)]
    if kind == "previous":
        return np.eye(n)[np.maximum(np.arange(n) - 1, 0)]
    if kind == "soft":
        return rng.dirichlet(np.ones(n), size=n)
    raise ValueError(f"kind must be one of {', '.join(PATTERNS)}; got {kind!r}.")


def pattern_from_choices(chosen: np.ndarray) -> np.ndarray:
    """A drawn pattern: chosen[i, j] True where query i should attend to key j; each row
    spreads its weight evenly over its chosen keys. Every row needs at least one."""
    chosen = np.asarray(chosen, dtype=bool)
    if chosen.ndim != 2 or chosen.shape[0] != chosen.shape[1]:
        raise ValueError(f"chosen must be a square (n, n) grid; got shape {chosen.shape}.")
    empty = np.flatnonzero(~chosen.any(axis=1))
    if empty.size:
        raise ValueError(
            f"every query row needs at least one chosen key; rows {empty.tolist()} have none."
        )
    return check_pattern(chosen / chosen.sum(axis=1, keepdims=True))


def check_pattern(target: np.ndarray) -> np.ndarray:
    """Return `target` as float64 if it is a square row-stochastic matrix, else raise."""
    target = np.asarray(target, dtype=np.float64)
    if target.ndim != 2 or target.shape[0] != target.shape[1]:
        raise ValueError(f"target must be a square (n, n) matrix; got shape {target.shape}.")
    _check_n(target.shape[0])
    check_finite_array("target", target)
    if (target < 0).any() or not np.allclose(target.sum(axis=1), 1.0, atol=1e-6):
        raise ValueError(
            "target must be row-stochastic: entries >= 0 and every row summing to 1; "
            f"got row sums {np.round(target.sum(axis=1), 3).tolist()}."
        )
    return target


def fit_rank_limit(
    target: np.ndarray,
    d_model: int = 64,
    max_d_head: int | None = None,
    steps: int = 1000,
    lr: float = 0.05,
    restarts: int = 2,
    score_penalty: float = 0.0,
    seed: int = 0,
) -> RankLimitResult:
    """Fit one head to `target` (n, n) for d_head = 1 … max_d_head (default n) from n
    seeded standard-normal token vectors of width d_model; all fits run as one batch."""
    target = check_pattern(target)
    n = target.shape[0]
    d_model = check_positive_int("d_model", d_model)
    max_d_head = n if max_d_head is None else check_positive_int("max_d_head", max_d_head)
    steps = check_positive_int("steps", steps)
    lr = check_positive_float("lr", lr)
    restarts = check_positive_int("restarts", restarts)
    score_penalty = _check_penalty(score_penalty)

    rng = np.random.default_rng(seed)
    x = rng.normal(size=(n, d_model))
    d_heads = np.arange(1, max_d_head + 1)
    # Every fit gets max_d_head columns; those beyond its own d_head start at zero and get
    # zero gradient, so fit r has exactly rank r available.
    used = (np.arange(max_d_head)[None, :] < d_heads[:, None]).astype(np.float64)
    mask = np.broadcast_to(used[None, :, None, :], (restarts, max_d_head, d_model, max_d_head))
    init_scale = d_model**-0.5
    w_q = rng.normal(scale=init_scale, size=mask.shape) * mask
    w_k = rng.normal(scale=init_scale, size=mask.shape) * mask
    optimiser = Adam([w_q, w_k], lr=lr, masks=[mask, mask])
    curves = np.empty((restarts, max_d_head, steps))
    for step in range(steps):
        fit = objective(x, target, w_q, w_k, d_heads, score_penalty)
        curves[..., step] = fit.error
        optimiser.step(fit.grads)

    fit = objective(x, target, w_q, w_k, d_heads, score_penalty)
    best = np.argmin(fit.error, axis=0)  # (m,) best restart per d_head
    pick = (best, np.arange(max_d_head))
    weights = fit.weights[pick]
    return RankLimitResult(
        target=target,
        d_heads=d_heads,
        error=fit.error[pick],
        misplaced=0.5 * np.abs(weights - target).sum(axis=-1).mean(axis=-1),
        fitted=weights,
        singular_values=np.linalg.svd(fit.scores[pick], compute_uv=False),
        loss_curves=curves[pick],
    )


@dataclass(frozen=True)
class Fit:
    """One evaluation of a batch of fits (leading axes of w_q, w_k)."""

    error: np.ndarray  # mean-row KL(target ‖ weights) per fit
    loss: np.ndarray  # error + score penalty per fit: what is minimised
    grads: list[np.ndarray]  # d(Σ loss) / d w_q, d w_k
    scores: np.ndarray  # (..., n, n) with the 1/√d_head scale
    weights: np.ndarray  # (..., n, n)


def objective(
    x: np.ndarray,
    target: np.ndarray,
    w_q: np.ndarray,
    w_k: np.ndarray,
    d_heads: np.ndarray,
    score_penalty: float = 0.0,
) -> Fit:
    """Scores X W_Q W_Kᵀ Xᵀ / √d_head for a batch of fits (..., m, d_model, columns), m
    fits of d_head = d_heads[i]; loss = mean-row KL + penalty · mean-row Σ_j S_ij²."""
    n = target.shape[0]
    scale = (1.0 / np.sqrt(d_heads))[:, None, None]
    q, k = x @ w_q, x @ w_k  # (..., m, n, columns)
    scores = q @ np.swapaxes(k, -1, -2) * scale
    weights = masked_softmax(scores)
    error = _kl(target, scores)
    loss = error + score_penalty * (scores**2).sum(axis=(-1, -2)) / n
    # Rows of target sum to 1, so d(mean-row KL)/dS = (weights - target) / n.
    d_scores = (weights - target + 2.0 * score_penalty * scores) * scale / n
    d_q = d_scores @ k
    d_k = np.swapaxes(d_scores, -1, -2) @ q
    return Fit(error, loss, [x.T @ d_q, x.T @ d_k], scores, weights)


def _kl(target: np.ndarray, scores: np.ndarray) -> np.ndarray:
    """Mean over rows of KL(target ‖ softmax(scores)), for each fit in the batch."""
    shifted = scores - scores.max(axis=-1, keepdims=True)
    log_weights = shifted - np.log(np.exp(shifted).sum(axis=-1, keepdims=True))
    n = target.shape[0]
    cross = -(target * log_weights).sum(axis=(-1, -2)) / n
    return np.maximum(cross + _xlogx(target).sum() / n, 0.0)


def _check_penalty(value: object) -> float:
    if value == 0:
        return 0.0
    return check_positive_float("score_penalty", value)


def _xlogx(p: np.ndarray) -> np.ndarray:
    return np.where(p > 0, p * np.log(np.where(p > 0, p, 1.0)), 0.0)


def _check_n(n: object) -> int:
    return check_int_in_range("n (the number of tokens)", n, 2, MAX_TOKENS)
