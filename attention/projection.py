"""Honest 2-D pictures of high-dimensional points: PCA, the joint query/key layout and
Procrustes alignment between panels.

The joint layout follows AttentionViz (Yeh et al., 2023): translate the keys so their
centroid meets the queries', and scale queries and keys to equal mean norm (measured
from their centres, as the picture shows them). Neither
changes any softmax — a shift of all keys adds the same amount to every score in a
query's row, and q·f, k/f leave q·k alone — but both make "near" mean "attends".
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy.linalg import orthogonal_procrustes
from scipy.stats import spearmanr
from sklearn.decomposition import PCA


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
class JointLayout:
    """Queries and keys of one head in one shared 2-D picture."""

    queries: np.ndarray  # (n_q, 2)
    keys: np.ndarray  # (n_k, 2)
    variance_kept: float
    score_distance_corr: float  # Spearman ρ between q·k (full d_head) and 2-D distance


def fit_plane(points: np.ndarray) -> Plane:
    """The plane of the points' two main axes (scikit-learn PCA). With fewer than two
    samples or dimensions, or identical points, the missing axes are zero."""
    points = np.asarray(points, dtype=np.float64)
    n, d = points.shape
    axes = np.zeros((d, 2))
    components = min(2, n, d)
    if components == 0 or np.allclose(points, points[0]):
        return Plane(points.mean(axis=0), axes, 1.0)
    pca = PCA(n_components=components, svd_solver="full").fit(points)
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


def joint_query_key_layout(q: np.ndarray, k: np.ndarray) -> JointLayout:
    """One head's queries (n_q, d_head) and keys (n_k, d_head) in one 2-D PCA, with a
    measure of faithfulness: how well 2-D distance ranks the true scores q·k."""
    q_eq, k_eq = equalise_queries_and_keys(q, k)
    layout = pca_2d(np.vstack([q_eq, k_eq]))
    q2, k2 = layout.coords[: len(q)], layout.coords[len(q) :]
    scores = np.asarray(q, dtype=np.float64) @ np.asarray(k, dtype=np.float64).T
    distances = np.linalg.norm(q2[:, None, :] - k2[None, :, :], axis=-1)
    return JointLayout(q2, k2, layout.variance_kept, rank_correlation(scores, distances))


def align_to(moving: np.ndarray, reference: np.ndarray) -> np.ndarray:
    """Rotate (or reflect) 2-D `moving` about its centroid to best match `reference`
    point for point (orthogonal Procrustes), so arbitrary PCA flips do not move points
    between panels. Scale and shape are untouched."""
    moving = np.asarray(moving, dtype=np.float64)
    reference = np.asarray(reference, dtype=np.float64)
    centre = moving.mean(axis=0)
    rotation, _ = orthogonal_procrustes(moving - centre, reference - reference.mean(axis=0))
    return (moving - centre) @ rotation + centre


def rank_correlation(a: np.ndarray, b: np.ndarray) -> float:
    """Spearman's ρ between two equally long sets of numbers; NaN when either is
    constant (no ordering to compare). Callers show NaN as "n/a"."""
    a, b = np.ravel(a), np.ravel(b)
    if a.size < 2 or np.ptp(a) == 0 or np.ptp(b) == 0:
        return float("nan")
    return float(spearmanr(a, b).statistic)
