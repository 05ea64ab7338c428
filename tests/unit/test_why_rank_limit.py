"""§3: the rank limit of one head, fitted by gradient descent."""

from __future__ import annotations

import numpy as np
import pytest

from attention.experiments.rank_limit import (
    check_pattern,
    fit_rank_limit,
    objective,
    pattern_from_choices,
    target_pattern,
)
from tests.support.gradcheck import numerical_gradient, relative_error

OPTIMISATION_NOISE = 0.02  # nats: how much a larger d_head may come out worse than a smaller


def assert_non_increasing(error):
    rises = np.diff(error)
    assert rises.max() <= OPTIMISATION_NOISE, f"error rose by {rises.max():.4f}: {error}"


@pytest.mark.parametrize("penalty", [0.0, 1e-3])
def test_permutation_error_falls_with_d_head_and_vanishes_at_n(penalty):
    target = target_pattern("permutation", 8, seed=1)
    result = fit_rank_limit(target, d_model=16, score_penalty=penalty, seed=0)
    assert_non_increasing(result.error)
    assert result.error[0] > 0.5, "one dimension cannot pick a different key per query"
    assert result.error[-1] < (1e-3 if penalty == 0 else 0.05)
    assert result.misplaced[-1] < (1e-3 if penalty == 0 else 0.05)


def test_soft_pattern_needs_the_rank():
    result = fit_rank_limit(target_pattern("soft", 8, seed=2), d_model=16, seed=0)
    assert_non_increasing(result.error)
    assert result.error[0] > 10 * result.error[-1]
    assert result.error[-1] < 0.01


def test_fitted_score_matrix_has_rank_at_most_d_head():
    result = fit_rank_limit(target_pattern("previous", 6), d_model=12, steps=100, seed=0)
    sv = result.singular_values
    assert sv.shape == (6, 6)
    for rank, values in zip(result.d_heads, sv, strict=True):
        assert np.all(values[rank:] <= 1e-9 * values[0])
        assert values[rank - 1] > 1e-6 * values[0]


def test_fitted_patterns_are_row_stochastic_and_errors_are_their_kl():
    target = target_pattern("soft", 5, seed=0)
    result = fit_rank_limit(target, d_model=8, steps=50, seed=0)
    np.testing.assert_allclose(result.fitted.sum(axis=-1), 1.0)
    kl = (target * np.log(target / result.fitted)).sum(axis=-1).mean(axis=-1)
    np.testing.assert_allclose(result.error, kl, rtol=1e-9)


def test_same_seed_same_fit():
    target = target_pattern("permutation", 6, seed=3)
    a = fit_rank_limit(target, d_model=8, steps=60, seed=5)
    b = fit_rank_limit(target, d_model=8, steps=60, seed=5)
    np.testing.assert_array_equal(a.loss_curves, b.loss_curves)


def test_objective_gradient_matches_finite_differences():
    rng = np.random.default_rng(0)
    target = target_pattern("soft", 4, seed=1)
    x = rng.normal(size=(4, 3))
    d_heads = np.array([1, 2])
    w_q, w_k = rng.normal(size=(2, 2, 3, 2))
    w_q[0, :, 1] = w_k[0, :, 1] = 0.0  # fit 0 has d_head = 1

    def total():
        return objective(x, target, w_q, w_k, d_heads, 0.01).loss.sum()

    grads = objective(x, target, w_q, w_k, d_heads, 0.01).grads
    for param, grad in zip((w_q, w_k), grads, strict=True):
        assert relative_error(grad, numerical_gradient(total, param)) < 1e-7


def test_target_patterns():
    perm = target_pattern("permutation", 7, seed=0)
    assert sorted(perm.argmax(axis=1)) == list(range(7)) and perm.sum() == 7
    prev = target_pattern("previous", 5)
    assert prev.argmax(axis=1).tolist() == [0, 0, 1, 2, 3]
    soft = target_pattern("soft", 6, seed=0)
    np.testing.assert_allclose(soft.sum(axis=1), 1.0)
    assert (soft > 0).all()


@pytest.mark.parametrize(
    ("matrix", "message"),
    [
        (np.ones((2, 3)) / 3, "square"),
        (np.array([[0.5, 0.6], [0.5, 0.5]]), "row-stochastic"),
        (np.array([[1.5, -0.5], [0.5, 0.5]]), "row-stochastic"),
        (np.array([[1.0]]), "n "),
    ],
)
def test_bad_targets_are_refused(matrix, message):
    with pytest.raises(ValueError, match=message):
        check_pattern(matrix)


def test_unknown_pattern_and_bad_penalty():
    with pytest.raises(ValueError, match="kind must be one of"):
        target_pattern("diagonal", 4)
    with pytest.raises(ValueError, match="score_penalty"):
        fit_rank_limit(target_pattern("previous", 4), score_penalty=-1.0)


def test_drawn_pattern_spreads_each_row_over_its_chosen_keys():
    chosen = np.array([[1, 1, 0], [0, 0, 1], [1, 1, 1]], dtype=bool)
    np.testing.assert_allclose(
        pattern_from_choices(chosen), [[0.5, 0.5, 0], [0, 0, 1], [1 / 3, 1 / 3, 1 / 3]]
    )
    with pytest.raises(ValueError, match=r"rows \[1\] have none"):
        pattern_from_choices(np.array([[1, 0], [0, 0]], dtype=bool))
