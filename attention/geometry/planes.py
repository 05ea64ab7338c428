"""2-D pictures of high-dimensional points: the PCA plane of their two main axes
(scikit-learn) and the Procrustes rotation that keeps panels from flipping."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy.linalg import orthogonal_procrustes
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


def fit_plane(points: np.ndarray) -> Plane:
    """The plane of the points' two main axes (scikit-learn PCA). With fewer than two
    samples or dimensions, or identical points, the missing axes are zero. More samples
    than dimensions (a real model's hidden states) take the eigenvectors of the d × d
    covariance: the same axes, faster than an SVD of the points for a real model's
    hidden states (docs/speed-history.md)."""
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


def hidden_state_paths(hidden_states: np.ndarray) -> Layout2D:
    """The (layers + 1, n, d) hidden states in ONE PCA plane fitted on all of them, so
    every layer's move lies on the same axes: coords (layers + 1, n, 2)."""
    steps, n, d = hidden_states.shape
    layout = pca_2d(hidden_states.reshape(steps * n, d))
    return Layout2D(layout.coords.reshape(steps, n, 2), layout.variance_kept)


def align_to(moving: np.ndarray, reference: np.ndarray) -> np.ndarray:
    """Rotate (or reflect) 2-D `moving` about its centroid to best match `reference`
    point for point (orthogonal Procrustes), so arbitrary PCA flips do not move points
    between panels. Scale and shape are untouched."""
    moving = np.asarray(moving, dtype=np.float64)
    reference = np.asarray(reference, dtype=np.float64)
    centre = moving.mean(axis=0)
    rotation, _ = orthogonal_procrustes(moving - centre, reference - reference.mean(axis=0))
    return (moving - centre) @ rotation + centre
