"""Cost accounting against the engine's actual arrays."""

from __future__ import annotations

import numpy as np
import pytest

from attention import MultiHeadAttention, attention_cost


@pytest.mark.parametrize(
    ("d_model", "n_heads", "d_head", "n_q", "n_k"),
    [(64, 4, None, 10, None), (64, 4, 64, 10, None), (30, 3, 7, 5, 9), (8, 1, None, 1, 1)],
)
def test_counts_match_the_engines_arrays(d_model, n_heads, d_head, n_q, n_k):
    mha = MultiHeadAttention(d_model, n_heads, d_head, seed=0)
    x = np.ones((n_q, d_model))
    ctx = None if n_k is None else np.ones((n_k, d_model))
    tr = mha(x, context=ctx)
    cost = mha.cost(n_q, n_k)
    params = sum(getattr(mha, n).size for n in ("w_q", "w_k", "w_v", "b_q", "b_k", "b_v"))
    assert cost.params_qkv == params
    assert cost.params_output == mha.w_o.size + mha.b_o.size
    # A matmul (a×b)·(b×c) costs a·b·c multiply-adds; b is the reduced axis.
    assert cost.macs_qkv == (tr.q.size + tr.k.size + tr.v.size) * d_model
    assert cost.macs_scores == tr.scores.size * mha.d_head
    assert cost.macs_weighted_sum == tr.heads.size * tr.weights.shape[-1]
    assert cost.macs_output == tr.output.size * tr.concat.shape[-1]
    assert cost.softmax_exps == tr.weights.size
    assert cost.macs == sum(cost.parts().values())


def test_h_small_heads_cost_the_same_as_one_big_head():
    many = attention_cost(512, 8, n_q=100)
    one = attention_cost(512, 1, n_q=100)
    full = attention_cost(512, 8, d_head=512, n_q=100)
    assert many.macs == one.macs and many.params == one.params
    assert full.macs_qkv == 8 * one.macs_qkv
    assert full.params_output - 512 == 8 * (one.params_output - 512)


def test_bias_free_parameter_count():
    assert attention_cost(64, 4, n_q=3, bias=False).params == 4 * 64 * 64
