"""The engine against a plain reference, and its contract (names, shapes, dtypes)."""

from __future__ import annotations

import numpy as np
import pytest

from attention import MultiHeadAttention, causal_mask
from tests.support.reference import reference_attention

# (d_model, n_heads, d_head, n_q, n_k or None, batch, kind)
CONFIGS = [
    (16, 4, None, 5, None, (), "self"),
    (16, 1, None, 7, None, (), "one head"),
    (12, 3, 12, 6, None, (), "full-size heads"),
    (10, 3, 7, 4, None, (), "odd d_head"),
    (16, 2, None, 5, 8, (), "cross"),
    (16, 4, None, 6, None, (), "causal"),
    (8, 2, 5, 6, None, (), "masked"),
    (8, 2, None, 4, None, (3,), "batched"),
    (8, 4, 3, 3, 5, (2, 2), "batched cross masked"),
    (32, 8, None, 1, None, (), "one token"),
]


def _weights(mha: MultiHeadAttention) -> dict[str, np.ndarray]:
    names = ("w_q", "w_k", "w_v", "w_o", "b_q", "b_k", "b_v", "b_o")
    return {n: np.asarray(getattr(mha, n), dtype=np.float64) for n in names}


@pytest.mark.parametrize("config", CONFIGS, ids=[c[-1] for c in CONFIGS])
@pytest.mark.parametrize("seed", range(4))
def test_engine_matches_reference(config, seed):
    d_model, n_heads, d_head, n_q, n_k, batch, kind = config
    rng = np.random.default_rng(seed)
    mha = MultiHeadAttention(d_model, n_heads, d_head, seed=seed, dtype=np.float64)
    x = rng.normal(size=(*batch, n_q, d_model))
    context = None if n_k is None else rng.normal(size=(*batch, n_k, d_model))
    keys = n_q if n_k is None else n_k
    mask = None
    if "masked" in kind:
        mask = rng.random((*batch, mha.n_heads, n_q, keys)) < 0.6
        mask[..., 0, :] = False  # one query row with no allowed key at all
    causal = kind == "causal"
    temperature = float(rng.uniform(0.3, 3.0))
    trace = mha(x, context=context, mask=mask, causal=causal, temperature=temperature)

    full_mask = causal_mask(n_q, keys) if causal else mask
    for index in np.ndindex(*batch):
        allowed = None
        if full_mask is not None:
            allowed = np.broadcast_to(
                full_mask if causal else full_mask[index], (mha.n_heads, n_q, keys)
            )
        ref = reference_attention(
            x[index],
            **_weights(mha),
            context=None if context is None else context[index],
            allowed=allowed,
            temperature=temperature,
        )
        for name in ("weights", "heads", "output"):
            np.testing.assert_allclose(getattr(trace, name)[index], ref[name], rtol=0, atol=1e-10)


def test_trace_has_contract_shapes():
    mha = MultiHeadAttention(d_model=64, n_heads=4, seed=0)
    x = np.zeros((2, 5, 64))
    ctx = np.ones((2, 7, 64))
    tr = mha(x, context=ctx)
    assert mha.w_q.shape == mha.w_k.shape == mha.w_v.shape == (4, 64, 16)
    assert mha.b_q.shape == (4, 16) and mha.w_o.shape == (64, 64) and mha.b_o.shape == (64,)
    assert tr.q.shape == (2, 4, 5, 16)
    assert tr.k.shape == tr.v.shape == (2, 4, 7, 16)
    assert tr.scores.shape == tr.weights.shape == (2, 4, 5, 7)
    assert tr.heads.shape == (2, 4, 5, 16)
    assert tr.concat.shape == (2, 5, 64)
    assert tr.output.shape == (2, 5, 64)
    assert tr.output.dtype == np.float32


def test_projection_formula_per_head():
    mha = MultiHeadAttention(d_model=12, n_heads=3, d_head=5, seed=3, dtype=np.float64)
    x = np.random.default_rng(0).normal(size=(4, 12))
    tr = mha(x, temperature=2.0)
    for h in range(3):
        np.testing.assert_allclose(tr.q[h], x @ mha.w_q[h] + mha.b_q[h], atol=1e-12)
        np.testing.assert_allclose(tr.v[h], x @ mha.w_v[h] + mha.b_v[h], atol=1e-12)
        expected_scores = tr.q[h] @ tr.k[h].T / np.sqrt(5) / 2.0
        np.testing.assert_allclose(tr.scores[h], expected_scores, atol=1e-12)
        np.testing.assert_allclose(tr.concat[:, 5 * h : 5 * h + 5], tr.heads[h], atol=0)
    np.testing.assert_allclose(tr.output, tr.concat @ mha.w_o + mha.b_o, atol=1e-12)


def test_seed_gives_same_weights_and_different_seeds_differ():
    a = MultiHeadAttention(32, 4, seed=7)
    b = MultiHeadAttention(32, 4, seed=7)
    c = MultiHeadAttention(32, 4, seed=8)
    np.testing.assert_array_equal(a.w_q, b.w_q)
    np.testing.assert_array_equal(a.w_o, b.w_o)
    assert not np.allclose(a.w_q, c.w_q)


def test_float32_model_is_float64_model_rounded():
    single = MultiHeadAttention(32, 4, seed=1, dtype=np.float32)
    double = MultiHeadAttention(32, 4, seed=1, dtype=np.float64)
    np.testing.assert_array_equal(single.w_k, double.w_k.astype(np.float32))


def test_glorot_limits_and_bias_off():
    mha = MultiHeadAttention(64, 8, seed=0, bias=False, dtype=np.float64)
    limit = np.sqrt(6 / (64 + 64))
    assert np.abs(mha.w_q).max() <= limit and np.abs(mha.w_q).max() > 0.9 * limit
    assert not mha.b_q.any() and not mha.b_o.any()


def test_from_weights_roundtrip_and_views_are_writable():
    src = MultiHeadAttention(20, 4, d_head=3, seed=5, dtype=np.float64)
    copy = MultiHeadAttention.from_weights(
        src.w_q, src.w_k, src.w_v, src.w_o, src.b_q, src.b_k, src.b_v, src.b_o
    )
    assert copy.dtype is np.float64 and (copy.n_heads, copy.d_model, copy.d_head) == (4, 20, 3)
    x = np.random.default_rng(1).normal(size=(6, 20))
    np.testing.assert_array_equal(copy(x).output, src(x).output)
    copy.w_q[1] = 0.0  # writing through the per-head view changes the model
    np.testing.assert_allclose(copy(x).q[1], np.broadcast_to(copy.b_q[1], (6, 3)))


def test_from_weights_without_biases_means_zero_biases():
    src = MultiHeadAttention(8, 2, seed=0, dtype=np.float64)
    mha = MultiHeadAttention.from_weights(src.w_q, src.w_k, src.w_v, src.w_o)
    assert mha.bias is False and not mha.b_k.any()
    x = np.random.default_rng(0).normal(size=(3, 8))
    np.testing.assert_allclose(mha(x).q, np.einsum("nd,hde->hne", x, src.w_q), atol=1e-12)


def test_fully_masked_row_is_zero_not_nan():
    mha = MultiHeadAttention(8, 2, seed=0)
    mask = np.ones((3, 3), dtype=bool)
    mask[1] = False
    tr = mha(np.ones((3, 8)), mask=mask)
    assert np.isfinite(tr.weights).all() and np.isfinite(tr.output).all()
    assert not tr.weights[:, 1].any()
    np.testing.assert_allclose(tr.weights[:, [0, 2]].sum(-1), 1.0, rtol=1e-6)


def test_huge_scores_stay_finite():
    mha = MultiHeadAttention(4, 1, seed=0, dtype=np.float64)
    x = np.array([[1e3, -1e3, 5e2, 0.0], [-2e3, 1e3, 0.0, 7e2]])
    tr = mha(x, temperature=1e-3)
    assert np.abs(tr.scores).max() > 1e5
    assert np.isfinite(tr.weights).all()
    np.testing.assert_allclose(tr.weights.sum(-1), 1.0)


def test_mask_broadcasts_over_heads_and_batch():
    mha = MultiHeadAttention(8, 2, seed=0, dtype=np.float64)
    x = np.random.default_rng(0).normal(size=(3, 4, 8))
    key_mask = np.array([True, True, False, True])  # hide key 2 everywhere
    tr = mha(x, mask=key_mask)
    assert not tr.weights[..., 2].any()
    assert tr.mask.shape == (4,)
