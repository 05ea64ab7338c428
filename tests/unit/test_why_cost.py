"""§1: the three head layouts' costs against counts of the engine's actual arrays."""

from __future__ import annotations

import numpy as np
import pytest

from attention import MultiHeadAttention
from attention.experiments.equal_cost import compare_layouts, cost_by_length, head_layouts


@pytest.mark.parametrize(("d_model", "n_heads", "n"), [(64, 4, 11), (12, 5, 3), (8, 1, 6)])
def test_layout_costs_match_the_engines_arrays(d_model, n_heads, n):
    for layout in compare_layouts(d_model, n_heads, n):
        mha = MultiHeadAttention(d_model, layout.n_heads, layout.d_head, seed=0)
        tr = mha(np.ones((n, d_model)))
        weights = [mha.w_q, mha.w_k, mha.w_v, mha.b_q, mha.b_k, mha.b_v, mha.w_o, mha.b_o]
        assert layout.cost.params == sum(w.size for w in weights)
        # A matmul (a×b)·(b×c) costs a·b·c multiply-adds; b is the reduced axis.
        projections = (tr.q.size + tr.k.size + tr.v.size) * d_model
        projections += tr.output.size * tr.concat.shape[-1]
        assert layout.projection_macs == projections
        assert layout.score_macs == tr.scores.size * tr.q.shape[-1] + tr.heads.size * n
        assert layout.distributions_per_query == tr.weights.shape[-3]


def test_split_heads_cost_what_one_big_head_costs_and_full_heads_h_times_more():
    split, one, full = compare_layouts(64, 4, 10)
    assert (split.n_heads, split.d_head, one.d_head, full.d_head) == (4, 16, 64, 64)
    assert split.cost.params == one.cost.params
    assert split.projection_macs == one.projection_macs
    assert split.score_macs == one.score_macs
    assert full.score_macs == 4 * one.score_macs
    assert full.cost.macs_qkv == 4 * one.cost.macs_qkv


def test_score_part_grows_with_n_squared_and_projections_linearly():
    table = cost_by_length(32, 4, [10, 20, 40])
    for parts in table.values():
        np.testing.assert_array_equal(parts["score"][1:] / parts["score"][:-1], [4, 4])
        np.testing.assert_array_equal(parts["projection"][1:] / parts["projection"][:-1], [2, 2])
    assert list(table) == [label for label, *_ in head_layouts(32, 4)]


def test_uneven_split_rounds_down():
    assert head_layouts(10, 4)[0][1:] == (4, 2)


@pytest.mark.parametrize(
    ("kwargs", "names"),
    [
        ({"d_model": 4, "n_heads": 8, "n_tokens": 3}, "n_heads"),
        ({"d_model": 0, "n_heads": 1, "n_tokens": 3}, "d_model"),
        ({"d_model": 8, "n_heads": 2, "n_tokens": 0}, "n_tokens"),
    ],
)
def test_bad_sizes_name_the_parameter(kwargs, names):
    with pytest.raises(ValueError, match=names):
        compare_layouts(**kwargs)
