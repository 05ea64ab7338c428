"""The joint query/key layout and the Procrustes alignment."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from attention import masked_softmax
from attention.projection import (
    align_to,
    equalise_queries_and_keys,
    fit_plane,
    joint_query_key_layout,
    pca_2d,
)


def _softmax(q, k):
    return masked_softmax(q @ k.T)


@settings(max_examples=50, deadline=None)
@given(st.integers(1, 12), st.integers(1, 12), st.integers(1, 9), st.integers(0, 10**6))
def test_equalising_leaves_every_softmax_unchanged(n_q, n_k, d, seed):
    rng = np.random.default_rng(seed)
    q = rng.normal(size=(n_q, d)) * rng.uniform(0.1, 5)
    k = rng.normal(size=(n_k, d)) * rng.uniform(0.1, 5) + rng.normal(size=d) * 3
    q_eq, k_eq = equalise_queries_and_keys(q, k)
    np.testing.assert_allclose(_softmax(q_eq, k_eq), _softmax(q, k), atol=1e-10)
    scale = np.linalg.norm(q_eq, axis=1).mean() + 1e-300
    np.testing.assert_allclose(q_eq.mean(axis=0), k_eq.mean(axis=0), atol=1e-12 * scale)


def test_equalising_balances_the_two_clouds_spread():
    rng = np.random.default_rng(5)
    for _ in range(20):
        q = rng.normal(size=(6, 4)) * rng.uniform(0.2, 3)
        k = rng.normal(size=(7, 4)) * rng.uniform(0.2, 3) + rng.normal(size=4)
        q_eq, k_eq = equalise_queries_and_keys(q, k)
        centre = q_eq.mean(axis=0)
        np.testing.assert_allclose(
            np.linalg.norm(q_eq - centre, axis=1).mean(),
            np.linalg.norm(k_eq - centre, axis=1).mean(),
            rtol=1e-12,
        )


def test_constructed_case_distance_and_score_correlate_negatively():
    """Keys placed on a circle, queries near some of them: the 2-D picture must rank
    the true scores by distance (nearer = higher score)."""
    angles = np.linspace(0, 2 * np.pi, 8, endpoint=False)
    keys = np.column_stack([np.cos(angles), np.sin(angles), np.zeros(8)])
    queries = keys[[0, 2, 5]] * 1.1 + np.array([0.0, 0.0, 0.05])
    layout = joint_query_key_layout(queries, keys)
    assert layout.score_distance_corr < -0.9
    assert layout.variance_kept > 0.95


def test_pca_keeps_all_variance_of_planar_points_and_handles_tiny_inputs():
    rng = np.random.default_rng(0)
    planar = rng.normal(size=(10, 2)) @ rng.normal(size=(2, 6))
    assert pca_2d(planar).variance_kept == pytest.approx(1.0)
    assert pca_2d(np.ones((1, 5))).coords.shape == (1, 2)
    same = pca_2d(np.ones((4, 3)))
    assert not same.coords.any() and same.variance_kept == 1.0


def test_plane_projection_is_affine():
    rng = np.random.default_rng(1)
    points = rng.normal(size=(7, 5))
    plane = fit_plane(points)
    w = rng.dirichlet(np.ones(7))
    average = plane.project((w @ points)[None])[0]
    np.testing.assert_allclose(average, w @ plane.project(points), atol=1e-12)


@pytest.mark.parametrize("reflect", [False, True])
def test_procrustes_undoes_a_rotation_or_reflection(reflect):
    rng = np.random.default_rng(2)
    reference = rng.normal(size=(9, 2))
    theta = 1.1
    rotation = np.array([[np.cos(theta), -np.sin(theta)], [np.sin(theta), np.cos(theta)]])
    if reflect:
        rotation = rotation @ np.diag([1.0, -1.0])
    moved = reference @ rotation + np.array([3.0, -2.0])
    aligned = align_to(moved, reference)
    # the shape is matched up to the moving set's own centre
    np.testing.assert_allclose(aligned - aligned.mean(0), reference - reference.mean(0), atol=1e-10)


def test_procrustes_keeps_distances():
    rng = np.random.default_rng(3)
    a, b = rng.normal(size=(6, 2)), rng.normal(size=(6, 2))
    aligned = align_to(a, b)
    dist = lambda p: np.linalg.norm(p[:, None] - p[None], axis=-1)  # noqa: E731
    np.testing.assert_allclose(dist(aligned), dist(a), atol=1e-12)


def _orthogonal_grid(steps: int = 7200) -> np.ndarray:
    """Every rotation of the plane in steps of 360°/steps, each also followed by a
    reflection: (2·steps, 2, 2) candidate maps for a brute-force search."""
    theta = np.linspace(0, 2 * np.pi, steps, endpoint=False)
    c, s = np.cos(theta), np.sin(theta)
    rotations = np.stack([np.stack([c, -s], -1), np.stack([s, c], -1)], -2)
    return np.concatenate([rotations, rotations @ np.diag([1.0, -1.0])])


GRID = _orthogonal_grid()


@settings(max_examples=60, deadline=None)
@given(st.integers(3, 12), st.booleans(), st.integers(0, 10**6))
def test_procrustes_map_is_orthogonal_and_no_angle_fits_better(n, related, seed):
    """align_to applies one orthogonal map about the moving set's centre, and its
    residual is the least of every rotation and reflection on a 0.05° grid."""
    rng = np.random.default_rng(seed)
    moving = rng.normal(size=(n, 2)) * rng.uniform(0.1, 10, size=2) + rng.normal(size=2) * 5
    if related:  # a noisy rotated or mirrored copy, so one map clearly wins
        reference = moving @ GRID[rng.integers(len(GRID))] + rng.normal(size=(n, 2)) * 0.3
    else:
        reference = rng.normal(size=(n, 2)) * 3
    aligned = align_to(moving, reference)
    centre = moving.mean(axis=0)
    np.testing.assert_allclose(aligned.mean(axis=0), centre, atol=1e-9 * (1 + abs(centre).max()))
    before, after = moving - centre, aligned - centre
    target = reference - reference.mean(axis=0)
    fitted, *_ = np.linalg.lstsq(before, after, rcond=None)
    np.testing.assert_allclose(before @ fitted, after, atol=1e-9 * abs(before).max())
    np.testing.assert_allclose(fitted.T @ fitted, np.eye(2), atol=1e-9)

    residual = np.linalg.norm(after - target)
    searched = np.linalg.norm(before @ GRID - target, axis=(1, 2))
    best = searched.min()
    scale = np.linalg.norm(before) * np.linalg.norm(target)
    assert residual <= best + 1e-9 * (1 + scale)
    assert best - residual <= 1e-5 * (1 + scale)  # the grid finds the same optimum
    kind = np.sign(np.linalg.det(GRID[searched.argmin()]))
    others = searched[np.sign(np.linalg.det(GRID)) != kind].min()
    if others - best > 1e-3 * (1 + scale):  # one kind clearly fits better
        assert np.sign(np.linalg.det(fitted)) == kind
