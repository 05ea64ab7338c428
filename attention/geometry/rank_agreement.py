"""How well one order agrees with another, row by row: Spearman's ρ with ties that
rounding cannot invent, used to say how much of a head's score order a picture keeps."""

from __future__ import annotations

import numpy as np
from scipy.spatial.distance import cdist

TIE_TOLERANCE = 1e-9  # rank ties: values this close, relative to a row's largest magnitude


def mean_row_agreement(score_ranks: np.ndarray, q: np.ndarray, k: np.ndarray) -> float:
    """Mean over query rows of ρ(score, −distance) between the points q and k."""
    rows = _row_pearson(score_ranks, row_ranks(-cdist(q, k, "sqeuclidean")))
    finite = rows[np.isfinite(rows)]
    return float(finite.mean()) if finite.size else float("nan")


def row_rank_correlation(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Spearman's ρ between a[i] and b[i] for every row i of two (n, m) arrays; NaN for
    a row where either side is constant (callers show it as "n/a"). Values within
    TIE_TOLERANCE of a row's largest magnitude count as ties (average ranks), so
    rounding cannot invent an order that exact arithmetic would not have."""
    return _row_pearson(row_ranks(a), row_ranks(b))


def _row_pearson(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Pearson's r between a[i] and b[i] for every row; NaN where a row is constant."""
    a = a - a.mean(axis=1, keepdims=True)
    b = b - b.mean(axis=1, keepdims=True)
    spread = np.sqrt((a**2).sum(axis=1) * (b**2).sum(axis=1))
    out = np.full(len(spread), np.nan)
    np.divide((a * b).sum(axis=1), spread, out=out, where=spread > 0)
    return out


def row_ranks(values: np.ndarray) -> np.ndarray:
    """Ranks 1..m within each row, tied values (see TIE_TOLERANCE) sharing their mean."""
    values = np.asarray(values, dtype=np.float64)
    n, m = values.shape
    order = np.argsort(values, axis=1)
    ordered = np.take_along_axis(values, order, axis=1)
    tolerance = TIE_TOLERANCE * np.abs(values).max(axis=1, keepdims=True, initial=0)
    starts = np.ones((n, m), dtype=bool)
    starts[:, 1:] = np.diff(ordered, axis=1) > tolerance
    groups = np.cumsum(starts.ravel()) - 1  # one id per run of ties, over all rows
    positions = np.tile(np.arange(1, m + 1, dtype=np.float64), n)
    mean_rank = np.bincount(groups, positions) / np.bincount(groups)
    ranks = np.empty((n, m))
    np.put_along_axis(ranks, order, mean_rank[groups].reshape(n, m), axis=1)
    return ranks
