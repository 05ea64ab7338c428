"""Honest 2-D pictures of high-dimensional points: PCA, the joint query/key layout and
Procrustes alignment between panels.

The joint layout starts as AttentionViz does (Yeh et al., 2023): translate the keys so
their centroid meets the queries', and scale queries and keys to equal mean norm
(measured from their centres, as the picture shows them). Neither changes any softmax — a
shift of all keys adds the same amount to every score in a query's row, and q·f, k/f
leave q·k alone. A score is a dot product, not a distance, so `score_space` then adds one
balancing coordinate in which nearer is exactly higher score for every query at once;
the picture is the 2-D PCA of that space, and `RankAgreement` says how much of the
order each step keeps.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy.linalg import orthogonal_procrustes
from scipy.spatial.distance import cdist
from sklearn.decomposition import PCA
from sklearn.utils import check_array

TIE_TOLERANCE = 1e-9  # rank ties: values this close, relative to a row's largest magnitude


@dataclass(frozen=True)
class Plane:
    """A fitted 2-D projection: subtract `mean`, multiply by `axes` (d, 2)."""

    mean: np.ndarray
    axes: np.ndarray
    variance_kept: float  # fraction of the fitted points' variance on the two axes

    def project(self, points: np.ndarray) -> np.ndarray:
        """Coordinates (n, 2) of points (n, d) in this plane; affine, so a weighted
        average of points lands on the same weighted average of their coordinates."""
        return (np.asarray(points, dtype=np.float64) - self.mean) @ self.axes


@dataclass(frozen=True)
class Layout2D:
    """Points in 2-D and how much of the points' spread the two axes keep."""

    coords: np.ndarray  # (n, 2)
    variance_kept: float  # fraction of total variance on the two axes (1.0 if <= 2-D)


@dataclass(frozen=True)
class RankAgreement:
    """How well "nearer" ranks "higher score" at each step from a head's space to its
    picture: Spearman ρ(score, −distance) over the keys, one per query row, averaged
    over the rows (rows whose scores are all equal have no order and are skipped; NaN
    if every row is such). +1 = the nearest key is always the highest-scoring one."""

    score_space: float  # head space + the balancing coordinate: 1 by construction
    head_space: float  # the head's own q and k (d_head), as the engine computes them
    picture: float  # the 2-D picture drawn from the score space


@dataclass(frozen=True)
class JointLayout:
    """Queries and keys of one head in one shared 2-D picture of its score space."""

    queries: np.ndarray  # (n_q, 2)
    keys: np.ndarray  # (n_k, 2)
    variance_kept: float  # of the score space (d_head + 1 dimensions) by the two axes
    rho: RankAgreement


def fit_plane(points: np.ndarray) -> Plane:
    """The plane of the points' two main axes (scikit-learn PCA). With fewer than two
    samples or dimensions, or identical points, the missing axes are zero. More samples
    than dimensions (a real model's hidden states) take the eigenvectors of the d × d
    covariance: the same axes, faster than an SVD of the points (MiniLM's 7 hidden
    states × 128 tokens, 896 × 384: 77 → 31 ms; × 512 tokens: 158 → 44 ms)."""
    points = np.asarray(points, dtype=np.float64)
    n, d = points.shape
    axes = np.zeros((d, 2))
    components = min(2, n, d)
    if components == 0 or np.allclose(points, points[0]):
        return Plane(points.mean(axis=0), axes, 1.0)
    solver = "covariance_eigh" if n > d else "full"
    pca = PCA(n_components=components, svd_solver=solver).fit(points)
    axes[:, :components] = pca.components_.T
    return Plane(pca.mean_, axes, float(pca.explained_variance_ratio_.sum()))


def pca_2d(points: np.ndarray) -> Layout2D:
    """Project points onto their own two main axes."""
    plane = fit_plane(points)
    return Layout2D(plane.project(points), plane.variance_kept)


def equalise_queries_and_keys(q: np.ndarray, k: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Scale queries by f and keys by 1/f so that both clouds spread equally far from
    their own centre (equal mean norm as the picture shows it), then move the keys'
    centre onto the queries'. Every query's softmax over the keys is unchanged."""
    q = np.asarray(q, dtype=np.float64)
    k = np.asarray(k, dtype=np.float64)
    q_spread = np.linalg.norm(q - q.mean(axis=0), axis=1).mean()
    k_spread = np.linalg.norm(k - k.mean(axis=0), axis=1).mean()
    f = np.sqrt(k_spread / q_spread) if q_spread > 0 and k_spread > 0 else 1.0
    q, k = q * f, k / f
    return q, k - k.mean(axis=0) + q.mean(axis=0)


def score_space(q: np.ndarray, k: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Queries (n_q, d) and keys (n_k, d) lifted to (n_q, d+1) and (n_k, d+1) so that
    ‖q_aug[i] − k_aug[j]‖² = c_i − 2·q[i]·k[j] with c_i = ‖q[i]‖² + M² the same for every
    key: nearer is exactly higher score, for every query at once. Each key gets
    √(M² − ‖k_j‖²), M the largest key norm, and each query 0 (the reduction of
    maximum inner product search to nearest neighbours). float32 stays float32; other
    numbers become float64; a mix of the two becomes float64."""
    q = check_array(q, dtype=[np.float64, np.float32], input_name="q")
    k = check_array(k, dtype=[np.float64, np.float32], input_name="k")
    if q.shape[1] != k.shape[1]:
        raise ValueError(
            f"q and k must have the same number of columns (one per dimension of the "
            f"head); got q with shape {q.shape} and k with shape {k.shape}."
        )
    dtype = np.result_type(q, k)
    q, k = q.astype(dtype, copy=False), k.astype(dtype, copy=False)
    norms_sq = np.einsum("ij,ij->i", k, k)
    lift = np.sqrt(np.maximum(norms_sq.max() - norms_sq, 0))
    return np.hstack([q, np.zeros((len(q), 1), dtype)]), np.hstack([k, lift[:, None]])


def joint_query_key_layout(q: np.ndarray, k: np.ndarray) -> JointLayout:
    """One head's queries (n_q, d_head) and keys (n_k, d_head) in one 2-D picture:
    equalised and shifted (no weight changes), lifted to the score space, then PCA; with
    how well distance ranks the true scores q·k in the head's own space, the score space
    and the picture."""
    q, k = np.asarray(q, dtype=np.float64), np.asarray(k, dtype=np.float64)
    score_ranks = _row_ranks(q @ k.T)
    q_eq, k_eq = equalise_queries_and_keys(q, k)
    q_aug, k_aug = score_space(q_eq, k_eq)
    layout = pca_2d(np.vstack([q_aug, k_aug]))
    q2, k2 = layout.coords[: len(q)], layout.coords[len(q) :]
    rho = RankAgreement(
        score_space=_mean_row_agreement(score_ranks, q_aug, k_aug),
        head_space=_mean_row_agreement(score_ranks, q, k),
        picture=_mean_row_agreement(score_ranks, q2, k2),
    )
    return JointLayout(q2, k2, layout.variance_kept, rho)


def _mean_row_agreement(score_ranks: np.ndarray, q: np.ndarray, k: np.ndarray) -> float:
    """Mean over query rows of ρ(score, −distance) between the points q and k."""
    rows = _row_pearson(score_ranks, _row_ranks(-cdist(q, k, "sqeuclidean")))
    finite = rows[np.isfinite(rows)]
    return float(finite.mean()) if finite.size else float("nan")


def row_rank_correlation(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Spearman's ρ between a[i] and b[i] for every row i of two (n, m) arrays; NaN for
    a row where either side is constant (callers show it as "n/a"). Values within
    TIE_TOLERANCE of a row's largest magnitude count as ties (average ranks), so
    rounding cannot invent an order that exact arithmetic would not have."""
    return _row_pearson(_row_ranks(a), _row_ranks(b))


def _row_pearson(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Pearson's r between a[i] and b[i] for every row; NaN where a row is constant."""
    a = a - a.mean(axis=1, keepdims=True)
    b = b - b.mean(axis=1, keepdims=True)
    spread = np.sqrt((a**2).sum(axis=1) * (b**2).sum(axis=1))
    out = np.full(len(spread), np.nan)
    np.divide((a * b).sum(axis=1), spread, out=out, where=spread > 0)
    return out


def _row_ranks(values: np.ndarray) -> np.ndarray:
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


def align_to(moving: np.ndarray, reference: np.ndarray) -> np.ndarray:
    """Rotate (or reflect) 2-D `moving` about its centroid to best match `reference`
    point for point (orthogonal Procrustes), so arbitrary PCA flips do not move points
    between panels. Scale and shape are untouched."""
    moving = np.asarray(moving, dtype=np.float64)
    reference = np.asarray(reference, dtype=np.float64)
    centre = moving.mean(axis=0)
    rotation, _ = orthogonal_procrustes(moving - centre, reference - reference.mean(axis=0))
    return (moving - centre) @ rotation + centre
