"""The numbers behind the head-spaces page, independent of any figure."""

from __future__ import annotations

import numpy as np
from scipy.stats import spearmanr

from attention import MultiHeadAttention
from attention.head_spaces import head_spaces, neighbours
from attention.toy import toy_inputs


def _scenario(heads=4, d_model=32, causal=False):
    inputs = toy_inputs("The cat sat on the mat because it was tired.", d_model)
    mha = MultiHeadAttention(d_model, heads, seed=3, dtype=np.float64)
    return inputs, mha(inputs.x, causal=causal)


def test_one_picture_per_head_with_every_token():
    inputs, trace = _scenario(heads=5, d_model=40)
    spaces = head_spaces(inputs.x, trace)
    n = len(inputs.tokens)
    assert len(spaces.heads) == 5
    for space in spaces.heads:
        assert space.queries.shape == space.keys.shape == space.values.shape == (n, 2)
        assert 0 < space.variance_kept <= 1 and 0 < space.value_variance_kept <= 1
        assert -1 <= space.score_distance_corr <= 1


def test_output_star_is_the_weighted_average_of_the_drawn_values():
    inputs, trace = _scenario(causal=True)
    spaces = head_spaces(inputs.x, trace)
    for h, space in enumerate(spaces.heads):
        np.testing.assert_allclose(space.outputs, trace.weights[h] @ space.values, atol=1e-10)


def test_neighbours_are_ranked_in_full_dimensions():
    inputs, trace = _scenario()
    focus = 1
    near = neighbours(inputs.x, trace, focus)
    x = inputs.x
    cos = x @ x[focus] / np.linalg.norm(x, axis=1) / np.linalg.norm(x[focus])
    assert near.original_order[0] == focus  # a token is most similar to itself
    np.testing.assert_allclose(near.original_cosine, cos, atol=1e-12)
    for h in range(trace.q.shape[0]):
        scores = trace.q[h, focus] @ trace.k[h].T / np.sqrt(trace.q.shape[-1])
        np.testing.assert_array_equal(near.head_orders[h], np.argsort(-scores, kind="stable"))
        assert near.rank_corr[h] == spearmanr(cos, scores).statistic


def test_repeated_words_land_on_one_point_without_positions():
    inputs = toy_inputs("the dog saw the cat", 16, positions=False)
    np.testing.assert_array_equal(inputs.x[0], inputs.x[3])
    with_positions = toy_inputs("the dog saw the cat", 16, positions=True)
    assert not np.allclose(with_positions.x[0], with_positions.x[3])
