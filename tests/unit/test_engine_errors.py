"""Every bad configuration or input raises ValueError naming the parameter, the value
received and what is allowed."""

from __future__ import annotations

import numpy as np
import pytest

from attention import MultiHeadAttention, attention_cost


@pytest.mark.parametrize(
    ("kwargs", "pieces"),
    [
        ({"d_model": 0, "n_heads": 1}, ["d_model", "got 0", ">= 1"]),
        ({"d_model": -4, "n_heads": 1}, ["d_model", "got -4", "positive"]),
        ({"d_model": 8.5, "n_heads": 1}, ["d_model", "got 8.5", "integer"]),
        ({"d_model": 8, "n_heads": 0}, ["n_heads", "got 0", ">= 1"]),
        ({"d_model": 8, "n_heads": 3}, ["divisible", "d_model=8", "n_heads=3", "[1, 2, 4, 8]"]),
        ({"d_model": 8, "n_heads": 2, "d_head": 0}, ["d_head", "got 0"]),
        ({"d_model": 8, "n_heads": 2, "dtype": np.int32}, ["dtype", "float32", "float64"]),
    ],
)
def test_bad_configuration(kwargs, pieces):
    with pytest.raises(ValueError) as info:
        MultiHeadAttention(**kwargs)
    for piece in pieces:
        assert piece in str(info.value)


@pytest.fixture
def mha():
    return MultiHeadAttention(8, 2, seed=0)


def _message(fn) -> str:
    with pytest.raises(ValueError) as info:
        fn()
    return str(info.value)


def test_x_of_wrong_width(mha):
    msg = _message(lambda: mha(np.zeros((3, 7))))
    assert "x" in msg and "(3, 7)" in msg and "d_model=8" in msg


def test_x_without_token_axis(mha):
    msg = _message(lambda: mha(np.zeros(8)))
    assert "x" in msg and "(8,)" in msg and "n_tokens" in msg


def test_context_of_wrong_width(mha):
    msg = _message(lambda: mha(np.zeros((3, 8)), context=np.zeros((4, 6))))
    assert "context" in msg and "(4, 6)" in msg and "d_model=8" in msg


def test_context_batch_that_does_not_broadcast(mha):
    msg = _message(lambda: mha(np.zeros((2, 3, 8)), context=np.zeros((3, 4, 8))))
    assert "context" in msg and "(2,)" in msg and "(3,)" in msg


@pytest.mark.parametrize("bad", [np.nan, np.inf, -np.inf])
def test_non_finite_input(mha, bad):
    x = np.zeros((3, 8))
    x[1, 2] = bad
    msg = _message(lambda: mha(x))
    assert "x" in msg and "finite" in msg and "1 NaN or infinite" in msg


def test_non_finite_context(mha):
    ctx = np.zeros((2, 8))
    ctx[0, 0] = np.nan
    assert "context" in _message(lambda: mha(np.zeros((3, 8)), context=ctx))


@pytest.mark.parametrize("temperature", [0, -1.0, np.nan, np.inf])
def test_bad_temperature(mha, temperature):
    msg = _message(lambda: mha(np.zeros((3, 8)), temperature=temperature))
    assert "temperature" in msg and repr(temperature) in msg and "> 0" in msg


def test_mask_of_wrong_shape(mha):
    msg = _message(lambda: mha(np.zeros((3, 8)), mask=np.ones((3, 4), dtype=bool)))
    assert "mask" in msg and "(3, 4)" in msg and "(2, 3, 3)" in msg


def test_mask_of_wrong_dtype(mha):
    msg = _message(lambda: mha(np.zeros((3, 8)), mask=np.ones((3, 3))))
    assert "mask" in msg and "boolean" in msg and "float64" in msg


def test_from_weights_shape_mismatch():
    good = MultiHeadAttention(8, 2, seed=0)
    build = MultiHeadAttention.from_weights
    msg = _message(
        lambda: MultiHeadAttention.from_weights(good.w_q, good.w_k[:, :6], good.w_v, good.w_o)
    )
    assert "w_k" in msg and "(2, 8, 4)" in msg and "(2, 6, 4)" in msg
    msg = _message(lambda: build(good.w_q, good.w_k, good.w_v, good.w_o.T[:4]))
    assert "w_o" in msg and "(8, 8)" in msg
    msg = _message(lambda: build(good.w_q[0], good.w_k, good.w_v, good.w_o))
    assert "w_q" in msg and "(8, 4)" in msg


def test_from_weights_rejects_nan_weights():
    good = MultiHeadAttention(8, 2, seed=0)
    w_v = good.w_v.copy()
    w_v[0, 0, 0] = np.nan
    build = MultiHeadAttention.from_weights
    assert "w_v" in _message(lambda: build(good.w_q, good.w_k, w_v, good.w_o))


def test_cost_rejects_bad_sizes():
    assert "n_q" in _message(lambda: attention_cost(8, 2, n_q=0))
    assert "divisible" in _message(lambda: attention_cost(8, 3, n_q=4))
