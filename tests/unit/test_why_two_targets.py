"""§2: one head cannot put full weight on two targets; two heads can."""

from __future__ import annotations

import numpy as np
import pytest

from attention.experiments.two_targets import ONE_HEAD_FLOOR, fit_two_targets, objective
from tests.support.gradcheck import numerical_gradient, relative_error


def tokens(n=8, d=16, seed=3):
    return np.random.default_rng(seed).normal(size=(n, d))


def two_target_loss(weights_on_a, weights_on_b):
    return -0.5 * (np.log(weights_on_a) + np.log(weights_on_b))


def test_two_heads_beat_one_head_on_the_two_target_objective():
    result = fit_two_targets(tokens(), query=2, targets=(0, 5), steps=300, seed=0)
    one = two_target_loss(*result.one_head_fetch)
    two = two_target_loss(*result.two_heads_fetch)
    # One distribution: w_a + w_b <= 1, so its loss can never go below log 2.
    assert sum(result.one_head_fetch) <= 1.0 + 1e-12
    assert one >= ONE_HEAD_FLOOR - 1e-12
    assert one < ONE_HEAD_FLOOR + 0.01, "the fit reaches the one-head optimum, ½ each"
    assert two < 0.05 and min(result.two_heads_fetch) > 0.95
    assert result.two_heads_loss[-1] < result.one_head_loss[-1] - 0.6
    np.testing.assert_allclose(result.one_head.sum(), 1.0)
    np.testing.assert_allclose(result.two_heads.sum(axis=1), [1.0, 1.0])


def test_loss_curves_match_the_returned_weights():
    result = fit_two_targets(tokens(), query=1, targets=(3, 6), steps=200, seed=1)
    assert result.one_head_loss.shape == result.two_heads_loss.shape == (200,)
    # The last recorded loss is one step before the returned weights: close, not equal.
    assert abs(result.one_head_loss[-1] - two_target_loss(*result.one_head_fetch)) < 0.01


def test_same_seed_same_result_other_seed_other_start():
    a = fit_two_targets(tokens(), 0, (1, 2), steps=50, seed=4)
    b = fit_two_targets(tokens(), 0, (1, 2), steps=50, seed=4)
    c = fit_two_targets(tokens(), 0, (1, 2), steps=50, seed=5)
    np.testing.assert_array_equal(a.one_head_loss, b.one_head_loss)
    np.testing.assert_array_equal(a.two_heads, b.two_heads)
    assert a.one_head_loss[0] != c.one_head_loss[0]


def test_objective_gradient_matches_finite_differences():
    rng = np.random.default_rng(0)
    x = rng.normal(size=(6, 5))
    aim = np.zeros((2, 6))
    aim[0, 1] = aim[1, 4] = 0.5
    w_q, w_k = rng.normal(size=(2, 2, 5, 3))
    _, grads, _ = objective(x, 2, aim, w_q, w_k)
    for param, grad in zip((w_q, w_k), grads, strict=True):
        numeric = numerical_gradient(lambda: objective(x, 2, aim, w_q, w_k)[0], param)
        assert relative_error(grad, numeric) < 1e-7


@pytest.mark.parametrize(
    ("query", "targets", "name"),
    [(0, (1, 1), "targets"), (0, (1, 9), "targets"), (-1, (1, 2), "query"), (0, (1,), "targets")],
)
def test_bad_indices_name_the_parameter(query, targets, name):
    with pytest.raises(ValueError, match=name):
        fit_two_targets(tokens(), query, targets)


def test_non_finite_vectors_are_refused():
    x = tokens()
    x[2, 3] = np.nan
    with pytest.raises(ValueError, match="x must hold only finite"):
        fit_two_targets(x, 0, (1, 2))


@pytest.mark.parametrize(("d_model", "d_heads"), [(16, (16, 8)), (5, (5, 2)), (1, (1, 1))])
def test_the_result_says_which_head_sizes_were_fitted(d_model, d_heads):
    # Equal cost: one head gets all d_model dimensions, each of two heads half of them.
    result = fit_two_targets(tokens(d=d_model), query=0, targets=(1, 2), steps=3)
    assert result.d_heads == d_heads
