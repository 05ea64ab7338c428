"""The score space, the joint query/key layout and the Procrustes alignment."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.stats import spearmanr

from attention import MultiHeadAttention, masked_softmax
from attention.geometry.planes import align_to, fit_plane, pca_2d
from attention.geometry.rank_agreement import row_rank_correlation
from attention.geometry.score_space import (
    equalise_queries_and_keys,
    joint_query_key_layout,
    score_space,
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


def _squared_distances(a, b):
    """Pairwise squared distances by explicit differences, in float64."""
    diff = a.astype(np.float64)[:, None, :] - b.astype(np.float64)[None, :, :]
    return (diff**2).sum(axis=-1)


def _softmax_rows(logits, allowed):
    """Plain masked softmax over the last axis (reference, not the engine's)."""
    shifted = np.where(allowed, logits, -np.inf)
    shifted = shifted - shifted.max(axis=-1, keepdims=True)
    e = np.exp(shifted)
    return e / e.sum(axis=-1, keepdims=True)


@settings(max_examples=200, deadline=None)
@given(
    st.integers(1, 20),
    st.integers(1, 20),
    st.integers(1, 16),
    st.sampled_from([np.float32, np.float64]),
    st.floats(1e-2, 1e2),
    st.integers(0, 10**6),
)
def test_score_space_distance_is_a_per_query_constant_minus_twice_the_score(
    n_q, n_k, d, dtype, scale, seed
):
    rng = np.random.default_rng(seed)
    q = (rng.normal(size=(n_q, d)) * scale).astype(dtype)
    k = (rng.normal(size=(n_k, d)) * scale * rng.uniform(0.1, 3, size=(n_k, 1))).astype(dtype)
    q_aug, k_aug = score_space(q, k)
    assert q_aug.shape == (n_q, d + 1) and k_aug.shape == (n_k, d + 1)
    assert q_aug.dtype == k_aug.dtype == dtype
    np.testing.assert_array_equal(q_aug[:, :d], q)
    np.testing.assert_array_equal(k_aug[:, :d], k)
    q64, k64 = q.astype(np.float64), k.astype(np.float64)
    m_sq = (k64**2).sum(axis=1).max()
    c = (q64**2).sum(axis=1) + m_sq  # the constant the identity promises, per query
    scale_sq = (np.sqrt((q64**2).sum(axis=1)).max() + np.sqrt(m_sq)) ** 2
    tolerance = 64 * np.finfo(dtype).eps * scale_sq
    expected = c[:, None] - 2 * q64 @ k64.T
    np.testing.assert_allclose(_squared_distances(q_aug, k_aug), expected, rtol=0, atol=tolerance)


@settings(max_examples=100, deadline=None)
@given(
    st.integers(1, 15),
    st.integers(2, 15),
    st.integers(1, 12),
    st.sampled_from([np.float32, np.float64]),
    st.integers(0, 10**6),
)
def test_nearest_key_in_score_space_is_the_highest_scoring_key(n_q, n_k, d, dtype, seed):
    rng = np.random.default_rng(seed)
    q = rng.normal(size=(n_q, d)).astype(dtype)
    k = (rng.normal(size=(n_k, d)) * rng.uniform(0.1, 4, size=(n_k, 1))).astype(dtype)
    q_aug, k_aug = score_space(q, k)
    nearest = _squared_distances(q_aug, k_aug).argmin(axis=1)
    scores = q.astype(np.float64) @ k.astype(np.float64).T
    best = scores.max(axis=1)
    # exact argmax, up to keys whose scores tie with the best within rounding
    tolerance = 64 * np.finfo(dtype).eps * (1 + np.abs(scores).max())
    assert (scores[np.arange(n_q), nearest] >= best - tolerance).all()
    clear = np.sort(scores, axis=1)[:, -2] < best - tolerance
    np.testing.assert_array_equal(nearest[clear], scores.argmax(axis=1)[clear])


def test_without_the_balancing_coordinate_nearest_is_not_highest():
    """Why score_space exists: a long key far away outscores a short key next door."""
    q = np.array([[1.0, 0.0]])
    k = np.array([[10.0, 0.0], [1.0, 0.1]])
    assert _squared_distances(q, k).argmin() == 1 and (q @ k.T).argmax() == 0
    q_aug, k_aug = score_space(q, k)
    assert _squared_distances(q_aug, k_aug).argmin() == 0


@settings(max_examples=60, deadline=None)
@given(
    st.integers(2, 24),
    st.integers(1, 4),
    st.integers(1, 6),
    st.floats(0.25, 4.0),
    st.booleans(),
    st.booleans(),
    st.sampled_from([np.float32, np.float64]),
    st.integers(0, 10**6),
)
def test_softmax_of_score_space_distances_is_the_engines_weights(
    n, heads, d_head, temperature, causal, cross, dtype, seed
):
    """softmax_j(−‖q_aug[i] − k_aug[j]‖² / (2·√d_head·T)) = the head's weights, with the
    AttentionViz normalisation applied first (it changes no weight)."""
    rng = np.random.default_rng(seed)
    d_model = heads * d_head + 1
    mha = MultiHeadAttention(d_model, heads, d_head, seed=seed % 1000, dtype=dtype)
    x = rng.normal(size=(n, d_model))
    context = rng.normal(size=(n + 3, d_model)) if cross else None
    trace = mha(x, context=context, causal=causal, temperature=temperature)
    n_k = trace.k.shape[-2]
    allowed = np.tri(n, n_k, dtype=bool) if causal else np.ones((n, n_k), dtype=bool)
    atol = 1e-4 if dtype == np.float32 else 1e-10
    for h in range(heads):
        q_aug, k_aug = score_space(*equalise_queries_and_keys(trace.q[h], trace.k[h]))
        logits = -_squared_distances(q_aug, k_aug) / (2 * np.sqrt(d_head) * temperature)
        np.testing.assert_allclose(_softmax_rows(logits, allowed), trace.weights[h], atol=atol)


@pytest.mark.parametrize(
    ("q", "k", "message"),
    [
        (np.ones(3), np.ones((2, 3)), "Expected 2D array"),
        (np.ones((2, 3)), np.ones((2, 3, 1)), "Found array with dim 3"),
        (np.ones((2, 3)), np.ones((2, 4)), "same number of columns"),
        (np.ones((0, 3)), np.ones((2, 3)), "0 sample"),
        (np.ones((2, 3)), np.ones((2, 0)), "0 feature"),
        (np.array([[1.0, np.nan]]), np.ones((2, 2)), "q contains NaN"),
        (np.ones((1, 2)), np.array([[np.inf, 1.0]]), "k contains infinity"),
        (np.ones((1, 2)), np.array([["a", "b"]]), "could not convert"),
    ],
)
def test_score_space_rejects_bad_input_with_a_clear_message(q, k, message):
    with pytest.raises(ValueError, match=message):
        score_space(q, k)


def test_score_space_dtypes():
    f32, f64, ints = np.ones((2, 3), np.float32), np.ones((2, 3)), np.ones((2, 3), int)
    assert score_space(f32, f32)[0].dtype == np.float32
    assert score_space(f64, f64)[1].dtype == np.float64
    assert {a.dtype for a in score_space(ints, ints)} == {np.dtype(np.float64)}
    assert {a.dtype for a in score_space(f32, f64)} == {np.dtype(np.float64)}


def test_row_rank_correlation_matches_scipy_row_by_row():
    rng = np.random.default_rng(4)
    a = rng.integers(0, 4, size=(30, 7)).astype(float)  # many ties
    b = rng.normal(size=(30, 7)) + a
    a[3] = 2.0  # a constant row has no order
    rows = row_rank_correlation(a, b)
    assert np.isnan(rows[3])
    for i in set(range(30)) - {3}:
        assert rows[i] == pytest.approx(spearmanr(a[i], b[i]).statistic, abs=1e-12)


def test_row_rank_correlation_treats_rounding_differences_as_ties():
    a = np.array([[1.0, 1.0 + 1e-15, 2.0, 0.5]])
    b = np.array([[0.0, 1.0, 2.0, -1.0]])
    tied = spearmanr([1.0, 1.0, 2.0, 0.5], b[0]).statistic
    assert row_rank_correlation(a, b)[0] == pytest.approx(tied, abs=1e-12)
    assert row_rank_correlation(b, a)[0] == pytest.approx(tied, abs=1e-12)


def test_rank_agreement_in_a_constructed_one_dimensional_head():
    """d_head = 1, one query q = 1, keys 4, 0.9, −0.5, 0.4. Scores rank the keys
    4 > 0.9 > 0.4 > −0.5; distances |1 − k| = 3, 0.1, 1.5, 0.6 rank them (nearest
    first) 0.9, 0.4, −0.5, 4: rank differences 3, −1, −1, −1, so
    ρ = 1 − 6·12 / (4·15) = −0.2 in the head's own space. The score space has
    2 dimensions, so its 2-D picture is exact and keeps the perfect order."""
    layout = joint_query_key_layout(np.array([[1.0]]), np.array([[4.0], [0.9], [-0.5], [0.4]]))
    assert layout.rho.head_space == pytest.approx(-0.2)
    assert layout.rho.score_space == pytest.approx(1.0)
    assert layout.rho.picture == pytest.approx(1.0)
    assert layout.variance_kept == pytest.approx(1.0)


def test_rank_agreement_averages_query_rows_and_skips_rows_without_order():
    """Two queries: q = 1 sees the keys of the case above (ρ = −0.2 in head space);
    q = 0 scores every key 0, has no order and is left out of the mean."""
    layout = joint_query_key_layout(
        np.array([[1.0], [0.0]]), np.array([[4.0], [0.9], [-0.5], [0.4]])
    )
    assert layout.rho.head_space == pytest.approx(-0.2)
    assert layout.rho.score_space == pytest.approx(1.0)
    assert np.isnan(joint_query_key_layout(np.zeros((2, 3)), np.ones((4, 3))).rho.picture)


def test_circle_of_keys_is_drawn_faithfully():
    """Keys on a circle, queries near some of them: nearer is higher score in the
    picture too, and the nearly flat score space keeps most of its variance in 2-D."""
    angles = np.linspace(0, 2 * np.pi, 8, endpoint=False)
    keys = np.column_stack([np.cos(angles), np.sin(angles), np.zeros(8)])
    queries = keys[[0, 2, 5]] * 1.1 + np.array([0.0, 0.0, 0.05])
    layout = joint_query_key_layout(queries, keys)
    assert layout.rho.picture > 0.9
    assert layout.variance_kept > 0.9


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
