"""Numbers that describe what a head does, computed from its attention weights.

Every function takes weights shaped (..., n_q, n_k) — rows are queries — and returns
one number per head (the mean over query rows), so they apply to one head or to a
whole (layers, heads, n, n) stack alike.
"""

from __future__ import annotations

import numpy as np

PATTERNS = ("self", "previous token", "next token", "first token")
FOCUSED_BELOW = 0.35  # normalised entropy under which a head is called "focused"
BROAD_ABOVE = 0.8  # ... and over which it is called "broad"
DOMINANT_SHARE = 0.5  # a positional pattern names the head when it takes this share


def row_entropy_bits(weights: np.ndarray) -> np.ndarray:
    """Entropy of each query row in bits (0 log 0 = 0); shape (..., n_q)."""
    w = np.asarray(weights, dtype=np.float64)
    logs = np.log2(w, out=np.zeros_like(w), where=w > 0)
    return -(w * logs).sum(axis=-1)


def entropy_bits(weights: np.ndarray) -> np.ndarray:
    """Mean row entropy in bits: 0 = every query looks at one key."""
    return row_entropy_bits(weights).mean(axis=-1)


def max_entropy_bits(allowed: np.ndarray) -> np.ndarray:
    """Mean over rows of log2(number of keys the row may use): a uniform head's entropy."""
    counts = np.maximum(np.asarray(allowed, dtype=bool).sum(axis=-1), 1)
    return np.log2(counts).mean(axis=-1)


def uniform_entropy_bits(n_keys: int) -> float:
    """Entropy of a query that spreads its weight evenly over n keys: log2 n bits."""
    return float(np.log2(max(n_keys, 1)))


def head_mean(weights: np.ndarray) -> np.ndarray:
    """The mean of (h, n_q, n_k) maps over the heads, shaped (1, n_q, n_k) like a stack
    of one head (rows still sum to 1)."""
    return np.asarray(weights).mean(axis=0, keepdims=True)


def offset_share(weights: np.ndarray, offset: int) -> np.ndarray:
    """Mean weight a query i puts on key i + offset (over the rows where it exists):
    offset 0 = itself, -1 = previous token, +1 = next token."""
    w = np.asarray(weights)
    n_q, n_k = w.shape[-2:]
    rows = np.arange(n_q)
    keys = rows + offset
    valid = (keys >= 0) & (keys < n_k)
    if not valid.any():
        return np.zeros(w.shape[:-2])
    return w[..., rows[valid], keys[valid]].mean(axis=-1)


def key_share(weights: np.ndarray, keys: np.ndarray) -> np.ndarray:
    """Mean total weight a query puts on the keys where `keys` (bool, n_k) is True."""
    w = np.asarray(weights)
    return w[..., np.asarray(keys, dtype=bool)].sum(axis=-1).mean(axis=-1)


def pattern_shares(weights: np.ndarray) -> dict[str, np.ndarray]:
    """The positional patterns a head can follow and the share of weight each takes."""
    first = np.zeros(np.asarray(weights).shape[-1], dtype=bool)
    first[0] = True
    return {
        "self": offset_share(weights, 0),
        "previous token": offset_share(weights, -1),
        "next token": offset_share(weights, 1),
        "first token": key_share(weights, first),
    }


def describe_head(
    weights: np.ndarray, allowed: np.ndarray | None = None, square: bool = True
) -> str:
    """A word or two for one head's (n_q, n_k) map: its dominant positional pattern when
    one takes over half the weight, else focused / broad / mixed by entropy relative to
    a uniform head over the allowed keys. Positional patterns other than "first token"
    only mean something on a square (self-attention) map."""
    weights = np.asarray(weights)
    shares = pattern_shares(weights)
    if not square:
        shares = {"first token": shares["first token"]}
    name, share = max(shares.items(), key=lambda item: float(item[1]))
    if share >= DOMINANT_SHARE and weights.shape[-1] > 1:
        return name
    allowed = np.ones(weights.shape, dtype=bool) if allowed is None else allowed
    top = float(max_entropy_bits(np.broadcast_to(allowed, weights.shape)))
    relative = float(entropy_bits(weights)) / top if top > 0 else 0.0
    if relative < FOCUSED_BELOW:
        return "focused"
    if relative > BROAD_ABOVE:
        return "broad"
    return "mixed"


def summarise_heads(
    weights: np.ndarray, focus: int, allowed: np.ndarray | None = None, square: bool = True
) -> dict[str, list]:
    """Per head of (h, n_q, n_k) weights: mean entropy in bits, the largest weight,
    the key the `focus` query attends to most, and the head's pattern in a word."""
    weights = np.asarray(weights)
    mask = None if allowed is None else np.broadcast_to(allowed, weights.shape)
    return {
        "entropy_bits": entropy_bits(weights).tolist(),
        "max_weight": weights.max(axis=(-2, -1)).tolist(),
        "focus_top_key": weights[:, focus].argmax(axis=-1).tolist(),
        "focus_top_weight": weights[:, focus].max(axis=-1).tolist(),
        "pattern": [
            describe_head(weights[h], None if mask is None else mask[h], square)
            for h in range(weights.shape[0])
        ],
    }
