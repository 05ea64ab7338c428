"""Rank collapse: pure attention merges the tokens (doubly exponentially), the residual
stream keeps them apart. Fixed seeds 0–4, ten random tokens of width 32, four heads."""

from __future__ import annotations

import numpy as np
import pytest

from attention.analysis.rank_collapse import collapse_runs, distance_from_rank_one, relative_pca

SEEDS = range(5)
NORMS = ("pre", "post", "none")


def test_distance_of_known_matrices():
    assert distance_from_rank_one(np.tile([3.0, -1.0, 2.0], (4, 1))) == 0.0
    assert distance_from_rank_one(np.zeros((3, 2))) == 0.0
    # mean token 0: all of X is spread
    assert distance_from_rank_one(np.array([[1.0, 0.0], [-1.0, 0.0]])) == pytest.approx(1.0)
    # mean (1, 0); spread [[0, 1], [0, -1]]: √2 / 2
    x = np.array([[1.0, 1.0], [1.0, -1.0]])
    assert distance_from_rank_one(x) == pytest.approx(np.sqrt(2) / 2)


def test_distance_is_scale_free_and_batched():
    x = np.random.default_rng(0).normal(size=(3, 5, 4))
    d = distance_from_rank_one(x)
    assert d.shape == (3,)
    np.testing.assert_allclose(distance_from_rank_one(x * 1e6), d)
    assert ((d > 0) & (d <= 1)).all()


@pytest.fixture(scope="module")
def runs():
    """{(norm, seed): [no res, no res + ffn, res, res + ffn]} at depth 24."""
    out = {}
    for norm in NORMS:
        for seed in SEEDS:
            x = np.random.default_rng(100 + seed).normal(size=(10, 32))
            out[norm, seed] = collapse_runs(x, depth=24, n_heads=4, norm=norm, seed=seed)
    return out


def test_runs_are_the_four_variants_in_order(runs):
    variants = [(r.residual, r.feed_forward) for r in runs["pre", 0]]
    assert variants == [(False, False), (False, True), (True, False), (True, True)]
    assert runs["pre", 0][0].states.shape == (25, 10, 32)


@pytest.mark.parametrize("norm", NORMS)
def test_without_residual_tokens_collapse_to_one_point(runs, norm):
    for seed in SEEDS:
        for run in runs[norm, seed][:2]:
            assert run.distances[0] > 0.9
            assert run.distances[8] < 1e-12, (norm, seed, run.label)


@pytest.mark.parametrize("norm", NORMS)
def test_without_residual_the_fall_is_doubly_exponential(runs, norm):
    """log distance at least doubles every layer (Dong et al.'s bound is ×3) until it
    reaches float64's floor; with the residual, four layers leave the tokens spread."""
    for seed in SEEDS:
        no_res, _, res, _ = runs[norm, seed]
        logs = np.log(no_res.distances[1:5])
        assert (logs[1:] / logs[:-1] >= 2).all(), (norm, seed, logs)
        assert no_res.distances[4] < 1e-4 and res.distances[4] > 0.6, (norm, seed)


@pytest.mark.parametrize("norm", NORMS)
def test_with_residual_tokens_stay_apart(runs, norm):
    floor = 0.1 if norm == "pre" else 1e-4
    for seed in SEEDS:
        no_res, _, res, res_ffn = runs[norm, seed]
        for run in (res, res_ffn):
            assert run.distances[24] > floor, (norm, seed, run.label)
            assert run.distances[24] > 1e8 * no_res.distances[24]


def test_collapse_is_deterministic_per_seed():
    x = np.random.default_rng(0).normal(size=(5, 16))
    a = collapse_runs(x, depth=3, n_heads=2, seed=7)
    b = collapse_runs(x, depth=3, n_heads=2, seed=7)
    c = collapse_runs(x, depth=3, n_heads=2, seed=8)
    for ra, rb, rc in zip(a, b, c, strict=True):
        np.testing.assert_array_equal(ra.states, rb.states)
        assert not np.allclose(ra.states[1:], rc.states[1:])


def test_relative_pca_puts_collapsed_tokens_on_one_point():
    x = np.random.default_rng(1).normal(size=(8, 16))
    spread = relative_pca(x)
    collapsed = relative_pca(np.tile(x[0], (8, 1)) + 1e-14 * x)
    assert np.abs(spread).max() > 0.3
    assert np.abs(collapsed).max() < 1e-6


def test_bad_arguments():
    with pytest.raises(ValueError, match="depth"):
        collapse_runs(np.zeros((3, 4)), depth=0)
    with pytest.raises(ValueError, match="n_tokens, d_model"):
        collapse_runs(np.zeros(4))
