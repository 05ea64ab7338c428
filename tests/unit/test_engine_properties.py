"""Properties that must hold for every configuration (hypothesis draws them)."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from attention import MultiHeadAttention

configs = st.fixed_dictionaries(
    {
        "d_model": st.integers(1, 24),
        "n_heads": st.integers(1, 6),
        "d_head": st.integers(1, 12),
        "n": st.integers(1, 9),
        "seed": st.integers(0, 2**16),
    }
)


def _model_and_input(c, dtype=np.float64):
    mha = MultiHeadAttention(c["d_model"], c["n_heads"], c["d_head"], seed=c["seed"], dtype=dtype)
    x = np.random.default_rng(c["seed"] + 1).normal(size=(c["n"], c["d_model"]))
    return mha, x


@settings(max_examples=60, deadline=None)
@given(configs, st.integers(0, 2**16))
def test_rows_sum_to_one_or_are_all_zero(c, mask_seed):
    mha, x = _model_and_input(c)
    mask = np.random.default_rng(mask_seed).random((c["n_heads"], c["n"], c["n"])) < 0.5
    weights = mha(x, mask=mask).weights
    sums = weights.sum(-1)
    has_key = mask.any(-1)
    np.testing.assert_allclose(sums[has_key], 1.0, atol=1e-12)
    assert not weights[~has_key].any()
    assert not weights[~mask].any()
    assert (weights >= 0).all()


@settings(max_examples=40, deadline=None)
@given(configs)
def test_causal_rows_never_look_ahead(c):
    mha, x = _model_and_input(c)
    weights = mha(x, causal=True).weights
    above = np.triu(np.ones((c["n"], c["n"]), dtype=bool), k=1)
    assert not weights[:, above].any()
    np.testing.assert_allclose(weights.sum(-1), 1.0, atol=1e-12)
    # and the first token can only look at itself
    np.testing.assert_allclose(weights[:, 0, 0], 1.0)


@settings(max_examples=40, deadline=None)
@given(configs, st.randoms(use_true_random=False))
def test_self_attention_is_permutation_equivariant(c, rnd):
    mha, x = _model_and_input(c)
    perm = list(range(c["n"]))
    rnd.shuffle(perm)
    plain, permuted = mha(x), mha(x[perm])
    np.testing.assert_allclose(permuted.output, plain.output[perm], atol=1e-10)
    np.testing.assert_allclose(permuted.weights, plain.weights[:, perm][:, :, perm], atol=1e-12)


@settings(max_examples=40, deadline=None)
@given(configs)
def test_heads_are_column_blocks_of_one_big_projection(c):
    """Per-head W_Q[h] are the column blocks of one d_model × (h·d_head) matrix."""
    mha, x = _model_and_input(c)
    h, d = c["n_heads"], c["d_head"]
    big_w = np.concatenate([mha.w_q[i] for i in range(h)], axis=1)
    big_b = np.concatenate([mha.b_q[i] for i in range(h)])
    all_queries = x @ big_w + big_b  # (n, h·d_head)
    q = mha(x).q
    for i in range(h):
        np.testing.assert_allclose(q[i], all_queries[:, i * d : (i + 1) * d], atol=1e-12)


@settings(max_examples=30, deadline=None)
@given(configs)
def test_small_temperature_approaches_argmax(c):
    mha, x = _model_and_input(c)
    scores = mha(x).scores
    top2 = np.sort(scores, axis=-1)[..., -2:] if c["n"] > 1 else None
    cold = mha(x, temperature=1e-6).weights
    argmax = scores.argmax(-1)
    picked = np.take_along_axis(cold, argmax[..., None], -1)[..., 0]
    if top2 is None:
        np.testing.assert_allclose(picked, 1.0)
        return
    clear_winner = (top2[..., 1] - top2[..., 0]) > 1e-4  # ties split the weight
    np.testing.assert_allclose(picked[clear_winner], 1.0, atol=1e-9)


@settings(max_examples=30, deadline=None)
@given(configs)
def test_float32_and_float64_agree(c):
    single, x = _model_and_input(c, np.float32)
    double, _ = _model_and_input(c, np.float64)
    a, b = single(x), double(x)
    assert a.weights.dtype == np.float32 and b.weights.dtype == np.float64
    np.testing.assert_allclose(a.weights, b.weights, atol=2e-5)
    np.testing.assert_allclose(a.output, b.output, atol=1e-4, rtol=1e-4)


@settings(max_examples=30, deadline=None)
@given(configs, st.integers(1, 8))
def test_cross_attention_rows_are_distributions_over_the_context(c, n_k):
    mha, x = _model_and_input(c)
    context = np.random.default_rng(c["seed"]).normal(size=(n_k, c["d_model"]))
    tr = mha(x, context=context)
    assert tr.weights.shape == (c["n_heads"], c["n"], n_k)
    np.testing.assert_allclose(tr.weights.sum(-1), 1.0, atol=1e-12)
    # each head's output lies in the convex hull of its values: check the bounds
    assert (tr.heads <= tr.v.max(axis=1, keepdims=True) + 1e-12).all()
    assert (tr.heads >= tr.v.min(axis=1, keepdims=True) - 1e-12).all()
