"""The numbers behind the head-spaces page, independent of any figure."""

from __future__ import annotations

import numpy as np
import pytest
from scipy.stats import spearmanr

from attention import MultiHeadAttention
from attention.geometry.head_spaces import head_spaces, neighbours
from attention.models.toy import toy_inputs


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


def _mean_row_spearman(scores, q, k):
    """Mean over query rows of scipy's ρ(score, −distance) (reference for the panels)."""
    distances = np.linalg.norm(q[:, None, :] - k[None, :, :], axis=-1)
    return np.mean([spearmanr(s, -d).statistic for s, d in zip(scores, distances, strict=True)])


def test_each_panel_reports_how_well_nearer_means_higher_score():
    """ρ(score, −distance) per query row, averaged: 1 in the score space, the measured
    value in the head's own space, and in the picture exactly as drawn (after Procrustes)."""
    inputs, trace = _scenario(heads=3, d_model=24)
    spaces = head_spaces(inputs.x, trace)
    for h, space in enumerate(spaces.heads):
        scores = trace.scores[h]
        assert space.rho.score_space == pytest.approx(1.0, abs=1e-12)
        head_space = _mean_row_spearman(scores, trace.q[h], trace.k[h])
        assert space.rho.head_space == pytest.approx(head_space, abs=1e-12)
        picture = _mean_row_spearman(scores, space.queries, space.keys)
        assert space.rho.picture == pytest.approx(picture, abs=1e-12)
        assert space.rho.head_space < 0.99  # random heads: distance alone misranks


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
        assert near.rank_corr[h] == pytest.approx(spearmanr(cos, scores).statistic, abs=1e-12)


def test_repeated_words_land_on_one_point_without_positions():
    inputs = toy_inputs("the dog saw the cat", 16, positions=False)
    np.testing.assert_array_equal(inputs.x[0], inputs.x[3])
    with_positions = toy_inputs("the dog saw the cat", 16, positions=True)
    assert not np.allclose(with_positions.x[0], with_positions.x[3])
