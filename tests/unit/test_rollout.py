"""Attention rollout on constructed maps whose product is worked out by hand, its row
sums, its limits (residual 0 and 1) and its input checks."""

from __future__ import annotations

import numpy as np
import pytest

from attention.analysis.rollout import attention_rollout


def test_two_layers_two_heads_by_hand():
    # layer 1: head A puts everything on token 0, head B on itself → mean [[1, 0], [.5, .5]]
    # mixed with ½ I: [[1, 0], [.25, .75]]
    # layer 2: both heads look at the other token → [[0, 1], [1, 0]], mixed: all ½
    # rollout 2 = mixed_2 · mixed_1 = ½ [1 + .25, 0 + .75] in both rows = [.625, .375]
    layer_1 = [[[1, 0], [1, 0]], [[1, 0], [0, 1]]]
    layer_2 = [[[0, 1], [1, 0]], [[0, 1], [1, 0]]]
    rollout = attention_rollout(np.array([layer_1, layer_2], dtype=float), residual=0.5)
    np.testing.assert_allclose(rollout[0], [[1.0, 0.0], [0.25, 0.75]], atol=1e-15)
    np.testing.assert_allclose(rollout[1], [[0.625, 0.375], [0.625, 0.375]], atol=1e-15)


def test_three_tokens_with_another_residual_weight():
    # one head per layer, residual 0.25: mixed = .75 A + .25 I
    a_1 = np.array([[0, 1, 0], [0, 0, 1], [1, 0, 0]], float)  # each token reads the next
    a_2 = np.full((3, 3), 1 / 3)
    m_1 = [[0.25, 0.75, 0], [0, 0.25, 0.75], [0.75, 0, 0.25]]
    # m_2 = .25 I + .25 everywhere; rows of m_1 sum to 1, so m_2 · m_1 = .25 m_1 + .25
    expected_2 = 0.25 * np.array(m_1) + 0.25
    rollout = attention_rollout(np.array([[a_1], [a_2]]), residual=0.25)
    np.testing.assert_allclose(rollout[0], m_1, atol=1e-15)
    np.testing.assert_allclose(rollout[1], expected_2, atol=1e-15)


def test_rows_are_renormalised_when_a_row_has_no_attention():
    # a fully masked query row (all-zero weights) keeps only its residual: itself
    weights = np.array([[[[0.5, 0.5], [0.0, 0.0]]]])
    rollout = attention_rollout(weights, residual=0.5)
    np.testing.assert_allclose(rollout[0], [[0.75, 0.25], [0.0, 1.0]], atol=1e-15)


def test_rows_sum_to_one_and_limits_on_random_maps():
    rng = np.random.default_rng(0)
    maps = rng.random((6, 12, 9, 9))
    maps /= maps.sum(-1, keepdims=True)
    rollout = attention_rollout(maps)
    assert rollout.shape == (6, 9, 9)
    np.testing.assert_allclose(rollout.sum(-1), 1.0, atol=1e-12)
    assert (rollout >= 0).all()
    np.testing.assert_allclose(
        attention_rollout(maps, residual=1.0), np.broadcast_to(np.eye(9), (6, 9, 9))
    )
    plain = maps.mean(axis=1)
    np.testing.assert_allclose(
        attention_rollout(maps, residual=0.0)[2], plain[2] @ plain[1] @ plain[0]
    )


@pytest.mark.parametrize(
    ("attentions", "residual", "piece"),
    [
        (np.ones((2, 3, 3)), 0.5, "(layers, heads, n, n)"),
        (np.ones((2, 1, 3, 4)), 0.5, "square"),
        (np.ones((0, 1, 3, 3)), 0.5, "at least one layer"),
        (np.full((1, 1, 2, 2), np.nan), 0.5, "finite"),
        (-np.ones((1, 1, 2, 2)), 0.5, "negative"),
        (np.zeros((1, 1, 2, 2)), 0.0, "residual must be > 0"),
        (np.ones((1, 1, 2, 2)), 1.5, "residual"),
        (np.ones((1, 1, 2, 2)), True, "residual"),
        (np.ones((1, 1, 2, 2)), "half", "residual"),
    ],
)
def test_bad_input_is_a_clear_error(attentions, residual, piece):
    with pytest.raises(ValueError) as info:
        attention_rollout(attentions, residual=residual)
    assert piece in str(info.value)
