"""Sublayer nudges (attention.analysis.update_ratios) against a block without LayerNorm
recomputed here step by step, and the per-head summaries the pages read (head_metrics,
two_targets)."""

from __future__ import annotations

import math
import statistics

import numpy as np
import pytest

from attention import MultiHeadAttention
from attention.analysis.head_metrics import head_mean, uniform_entropy_bits
from attention.analysis.update_ratios import block_nudges, median_over_tokens
from attention.core.blocks import FEED_FORWARD, SELF_ATTENTION, EncoderBlock
from attention.experiments.two_targets import same_vector


def _length(row) -> float:
    return math.sqrt(sum(float(v) ** 2 for v in row))


def test_block_nudges_are_the_norms_of_the_stream_and_of_each_update():
    x = np.random.default_rng(0).normal(size=(5, 8))
    mha = MultiHeadAttention(8, 2, seed=1, dtype=np.float64)
    block = EncoderBlock.around(mha, norm="none", seed=1)
    nudges = block_nudges(block(x))
    # Without LayerNorm the stream is x, then x + attention's update, then + the FFN's.
    attention = mha(x).output
    feed_forward = block.feed_forward(x + attention).output
    streams = [[_length(r) for r in x], [_length(r) for r in x + attention]]
    updates = [[_length(r) for r in attention], [_length(r) for r in feed_forward]]
    assert nudges.names == [SELF_ATTENTION, FEED_FORWARD]
    np.testing.assert_allclose(nudges.stream_norms, streams, rtol=1e-12)
    np.testing.assert_allclose(nudges.update_norms, updates, rtol=1e-12)
    ratios = [
        [u / s for u, s in zip(*pair, strict=True)] for pair in zip(updates, streams, strict=True)
    ]
    np.testing.assert_allclose(nudges.ratios, ratios, rtol=1e-12)
    np.testing.assert_allclose(nudges.median_ratios, [statistics.median(r) for r in ratios])


def test_median_over_tokens_keeps_layers_and_sublayers_apart():
    ratios = np.array([[[1.0, 9.0, 2.0], [0.5, 0.1, 0.3]], [[4.0, 4.0, 0.0], [7.0, 1.0, 2.0]]])
    np.testing.assert_array_equal(median_over_tokens(ratios), [[2.0, 0.3], [4.0, 2.0]])


def test_head_mean_is_a_stack_of_one_map_whose_rows_sum_to_one():
    weights = np.random.default_rng(2).dirichlet(np.ones(4), size=(3, 5))
    mean = head_mean(weights)
    assert mean.shape == (1, 5, 4)
    np.testing.assert_allclose(mean[0, 2, 1], sum(weights[h, 2, 1] for h in range(3)) / 3)
    np.testing.assert_allclose(mean.sum(-1), 1.0)


@pytest.mark.parametrize(("n", "bits"), [(1, 0.0), (2, 1.0), (13, math.log2(13))])
def test_uniform_entropy_is_log2_of_the_number_of_keys(n, bits):
    weights = np.full(n, 1 / n)
    assert uniform_entropy_bits(n) == pytest.approx(-sum(w * math.log2(w) for w in weights))
    assert uniform_entropy_bits(n) == pytest.approx(bits)


def test_same_vector_compares_two_tokens():
    x = np.array([[1.0, 2.0], [0.0, 1.0], [1.0, 2.0 + 1e-12]])
    assert same_vector(x, 0, 2) and not same_vector(x, 0, 1)
