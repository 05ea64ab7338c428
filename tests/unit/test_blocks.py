"""LayerNorm, the feed-forward network and the encoder/decoder blocks against the plain
references in tests/support/reference_block.py, plus the decoder's causality."""

from __future__ import annotations

import math

import numpy as np
import pytest

from attention.core.blocks import (
    CAUSAL_SELF_ATTENTION,
    CROSS_ATTENTION,
    FEED_FORWARD,
    SELF_ATTENTION,
    BlockConfig,
    DecoderBlock,
    EncoderBlock,
    update_ratios,
)
from attention.core.layers import FeedForward, LayerNorm, gelu
from tests.support.reference_block import (
    attention_weights_of,
    ffn_weights_of,
    reference_block,
    reference_feed_forward,
    reference_gelu,
    reference_layer_norm,
)

EPS = 1e-5
rng = np.random.default_rng


def test_gelu_is_the_exact_erf_form():
    values = np.linspace(-6, 6, 241)
    expected = [reference_gelu(float(v)) for v in values]
    np.testing.assert_allclose(gelu(values), expected, rtol=0, atol=1e-15)
    # known values: Φ(1) = 0.841344746…, and the tanh approximation differs visibly at 1
    assert gelu(np.array([1.0]))[0] == pytest.approx(0.8413447460685429, abs=1e-15)
    tanh_form = 0.5 * (1 + math.tanh(math.sqrt(2 / math.pi) * (1 + 0.044715)))
    assert abs(gelu(np.array([1.0]))[0] - tanh_form) > 1e-5


def test_gelu_keeps_float32():
    assert gelu(np.ones(3, dtype=np.float32)).dtype == np.float32


@pytest.mark.parametrize("eps", [1e-5, 1e-12, 0.5])
def test_layer_norm_matches_reference(eps):
    x = rng(1).normal(size=(6, 10)) * 3 + 1
    trace = LayerNorm(10, eps=eps, dtype=np.float64)(x)
    np.testing.assert_allclose(trace.output, reference_layer_norm(x, eps), atol=1e-12)
    np.testing.assert_allclose(trace.mean[:, 0], x.mean(axis=1), atol=1e-12)


def test_layer_norm_of_a_constant_token_is_zero_not_nan():
    out = LayerNorm(4, dtype=np.float64)(np.full((2, 4), 7.0)).output
    assert np.isfinite(out).all() and not out.any()


@pytest.mark.parametrize("activation", ["gelu", "relu"])
def test_feed_forward_matches_reference(activation):
    ffn = FeedForward(8, 20, activation=activation, seed=3, dtype=np.float64)
    x = rng(4).normal(size=(5, 8))
    trace = ffn(x)
    ref = reference_feed_forward(x, **ffn_weights_of(ffn), activation=activation)
    np.testing.assert_allclose(trace.hidden, ref["hidden"], atol=1e-12)
    np.testing.assert_allclose(trace.output, ref["output"], atol=1e-12)
    assert trace.hidden.shape == (5, 20)
    if activation == "relu":
        assert (trace.hidden >= 0).all() and (trace.hidden == 0).any()


def test_feed_forward_defaults_to_four_times_d_model_and_is_seeded():
    a, b, c = FeedForward(6, seed=1), FeedForward(6, seed=1), FeedForward(6, seed=2)
    assert a.d_ff == 24 and a.w_1.shape == (6, 24) and a.w_2.shape == (24, 6)
    assert np.array_equal(a.w_1, b.w_1) and not np.array_equal(a.w_1, c.w_1)


BLOCK_CASES = [
    (norm, residual, with_ffn)
    for norm in ("post", "pre", "none")
    for residual in (True, False)
    for with_ffn in (True, False)
]


@pytest.mark.parametrize(("norm", "residual", "with_ffn"), BLOCK_CASES)
@pytest.mark.parametrize("causal", [False, True])
def test_encoder_block_matches_reference(norm, residual, with_ffn, causal):
    block = EncoderBlock.random(BlockConfig(
        12, 3, d_ff=20, use_feed_forward=with_ffn, norm=norm, residual=residual, seed=5,
        dtype=np.float64,
    ))  # fmt: skip
    x = rng(6).normal(size=(7, 12))
    trace = block(x, causal=causal)
    ref = reference_block(
        x,
        [(attention_weights_of(block.self_attention), None, causal)],
        ffn_weights_of(block.feed_forward) if with_ffn else None,
        "gelu",
        norm,
        residual,
        EPS,
    )
    assert len(trace.sublayers) == len(ref)
    for step, (update, stream_out) in zip(trace.sublayers, ref, strict=True):
        np.testing.assert_allclose(step.update, update, atol=1e-10)
        np.testing.assert_allclose(step.stream_out, stream_out, atol=1e-10)
        np.testing.assert_allclose(step.update_norms, np.linalg.norm(update, axis=1), atol=1e-10)
    np.testing.assert_allclose(trace.output, ref[-1][1], atol=1e-10)
    assert trace.sublayers[0].name == (CAUSAL_SELF_ATTENTION if causal else SELF_ATTENTION)


@pytest.mark.parametrize(("norm", "residual", "with_ffn"), BLOCK_CASES)
def test_decoder_block_matches_reference(norm, residual, with_ffn):
    block = DecoderBlock.random(BlockConfig(
        12, 4, d_ff=16, activation="relu", use_feed_forward=with_ffn, norm=norm,
        residual=residual, seed=8, dtype=np.float64,
    ))  # fmt: skip
    target = rng(9).normal(size=(5, 12))
    memory = rng(10).normal(size=(8, 12))
    trace = block(target, memory)
    ref = reference_block(
        target,
        [
            (attention_weights_of(block.self_attention), None, True),
            (attention_weights_of(block.cross_attention), memory, False),
        ],
        ffn_weights_of(block.feed_forward) if with_ffn else None,
        "relu",
        norm,
        residual,
        EPS,
    )
    for step, (update, stream_out) in zip(trace.sublayers, ref, strict=True):
        np.testing.assert_allclose(step.update, update, atol=1e-10)
        np.testing.assert_allclose(step.stream_out, stream_out, atol=1e-10)
    cross = trace.sublayer(CROSS_ATTENTION).detail
    assert cross.weights.shape == (4, 5, 8)  # target × source
    assert [s.name for s in trace.sublayers][:2] == [CAUSAL_SELF_ATTENTION, CROSS_ATTENTION]


@pytest.mark.parametrize("norm", ["post", "pre"])
@pytest.mark.parametrize("changed", [1, 3, 5])
def test_decoder_never_reads_the_future(norm, changed):
    """Changing target token `changed` leaves every earlier position's intermediates
    exactly as they were, and does change that position and the ones after it."""
    block = DecoderBlock.random(BlockConfig(16, 4, norm=norm, seed=11, dtype=np.float64))
    target = rng(12).normal(size=(6, 16))
    memory = rng(13).normal(size=(4, 16))
    edited = target.copy()
    edited[changed] = rng(14).normal(size=16)
    before, after = block(target, memory), block(edited, memory)
    for a, b in zip(before.sublayers, after.sublayers, strict=True):
        np.testing.assert_array_equal(a.stream_out[:changed], b.stream_out[:changed])
        np.testing.assert_array_equal(a.update[:changed], b.update[:changed])
        assert not np.allclose(a.stream_out[changed:], b.stream_out[changed:])
    weights = before.sublayer(CAUSAL_SELF_ATTENTION).detail.weights
    assert not np.triu(weights, k=1).any()


def test_decoder_reads_the_memory():
    block = DecoderBlock.random(BlockConfig(8, 2, seed=0, dtype=np.float64))
    target = rng(0).normal(size=(3, 8))
    memory = rng(1).normal(size=(5, 8))
    plain = block(target, memory)
    moved = block(target, memory[::-1] * 2)
    np.testing.assert_array_equal(  # the causal self-attention does not see the memory
        plain.sublayers[0].stream_out, moved.sublayers[0].stream_out
    )
    assert not np.allclose(plain.output, moved.output)


def test_trace_norms_and_lookup():
    block = EncoderBlock.random(BlockConfig(8, 2, norm="pre", seed=0, dtype=np.float64))
    x = rng(2).normal(size=(4, 8))
    trace = block(x)
    step = trace.sublayer(FEED_FORWARD)
    np.testing.assert_allclose(step.stream_norms, np.linalg.norm(step.stream_in, axis=1))
    # pre-LN: the stream is never normalised, so out = in + update exactly
    np.testing.assert_allclose(step.stream_out, step.stream_in + step.update, atol=1e-12)
    assert trace.input is not None and trace.output is step.stream_out
    with pytest.raises(KeyError, match="cross-attention"):
        trace.sublayer(CROSS_ATTENTION)


def test_same_seed_same_block_and_float32_stays_float32():
    a = EncoderBlock.random(BlockConfig(8, 2, seed=3))
    b = EncoderBlock.random(BlockConfig(8, 2, seed=3))
    x = rng(0).normal(size=(4, 8))
    np.testing.assert_array_equal(a(x).output, b(x).output)
    assert a(x).output.dtype == np.float32
    assert not np.array_equal(a(x).output, EncoderBlock.random(BlockConfig(8, 2, seed=4))(x).output)


@pytest.mark.parametrize(
    ("make", "pieces"),
    [
        (
            lambda: EncoderBlock.random(BlockConfig(8, 2, norm="middle")),
            ["norm", "'middle'", "post"],
        ),
        (lambda: FeedForward(8, activation="tanh"), ["activation", "'tanh'", "gelu"]),
        (lambda: FeedForward(8, d_ff=0), ["d_ff", "got 0"]),
        (lambda: LayerNorm(8, eps=0), ["eps", "got 0"]),
        (
            lambda: EncoderBlock(
                EncoderBlock.random(BlockConfig(8, 2)).self_attention, FeedForward(6)
            ),
            ["d_model", "8", "6"],
        ),
    ],
)
def test_bad_configuration_names_the_parameter(make, pieces):
    with pytest.raises(ValueError) as info:
        make()
    for piece in pieces:
        assert piece in str(info.value)


def test_bad_input_shape_is_a_clear_error():
    with pytest.raises(ValueError, match="d_model=8"):
        FeedForward(8)(np.zeros((3, 5)))
    with pytest.raises(ValueError, match="finite"):
        LayerNorm(4)(np.array([[1.0, np.nan, 0.0, 0.0]]))


def test_block_around_existing_heads_keeps_them_and_draws_its_own_ffn():
    block = EncoderBlock.random(BlockConfig(8, 2, seed=0, dtype=np.float64))
    wrapped = EncoderBlock.around(block.self_attention, d_ff=16, norm="pre", seed=0)
    assert wrapped.self_attention is block.self_attention
    assert wrapped.feed_forward.w_1.shape == (8, 16) and wrapped.norm == "pre"
    assert wrapped.feed_forward.w_1.dtype == np.float64
    # not FeedForward(seed=0), whose draws would mirror MultiHeadAttention(seed=0)'s
    assert not np.allclose(wrapped.feed_forward.w_1, FeedForward(8, 16, seed=0).w_1)


def test_update_ratios_divide_and_give_zero_for_an_empty_stream():
    update = np.array([[3.0, 2.0, 0.0], [1.0, 0.0, 5.0]])
    stream = np.array([[6.0, 0.0, 4.0], [0.5, 0.0, 2.0]])
    ratios = update_ratios(update, stream)
    np.testing.assert_array_equal(ratios, [[0.5, 0.0, 0.0], [2.0, 0.0, 2.5]])
    assert np.isfinite(ratios).all()
    assert update_ratios(update.astype(np.float32), stream.astype(np.float32)).dtype == np.float32


def test_block_with_learned_norms_uses_their_gain_bias_and_eps():
    """Post-LN with given LayerNorms against the reference sublayers, gain and bias applied
    by hand: LN(x + update) · gain + bias, with each norm's own eps."""
    base = EncoderBlock.random(BlockConfig(8, 2, d_ff=12, seed=4, dtype=np.float64))
    gains, biases = rng(5).normal(size=(2, 8)), rng(6).normal(size=(2, 8))
    norms = [LayerNorm.from_weights(gains[i], biases[i], eps=1e-12) for i in range(2)]
    block = EncoderBlock(base.self_attention, base.feed_forward, norm="post", norms=norms)
    x = rng(7).normal(size=(5, 8))
    trace = block(x)

    attention = attention_weights_of(block.self_attention)
    ffn = ffn_weights_of(block.feed_forward)
    update = reference_block(x, [(attention, None, False)], None, "gelu", "none", True, 1e-12)
    middle = reference_layer_norm(x + update[0][0], 1e-12) * gains[0] + biases[0]
    fed = reference_feed_forward(middle, **ffn, activation="gelu")["output"]
    out = reference_layer_norm(middle + fed, 1e-12) * gains[1] + biases[1]
    np.testing.assert_allclose(trace.sublayers[0].stream_out, middle, atol=1e-10)
    np.testing.assert_allclose(trace.sublayers[1].update, fed, atol=1e-10)
    np.testing.assert_allclose(trace.output, out, atol=1e-10)


@pytest.mark.parametrize(
    ("norm", "norms", "piece"),
    [
        ("none", [LayerNorm(8, dtype=np.float64)] * 2, "none"),
        ("post", [LayerNorm(8, dtype=np.float64)], "2, one per sublayer"),
        ("post", [LayerNorm(6, dtype=np.float64)] * 2, "d_model=8"),
        ("pre", [LayerNorm(8, dtype=np.float32)] * 2, "float64"),
        ("post", ["layer norm", LayerNorm(8, dtype=np.float64)], "LayerNorms"),
    ],
)
def test_bad_learned_norms_are_refused(norm, norms, piece):
    base = EncoderBlock.random(BlockConfig(8, 2, seed=0, dtype=np.float64))
    with pytest.raises(ValueError, match="norms") as info:
        EncoderBlock(base.self_attention, base.feed_forward, norm=norm, norms=norms)
    assert piece in str(info.value)


def test_decoder_block_takes_one_learned_norm_per_sublayer():
    base = DecoderBlock.random(BlockConfig(8, 2, seed=1, dtype=np.float64))
    norms = [LayerNorm.from_weights(np.full(8, 2.0), np.zeros(8), eps=1e-12) for _ in range(3)]
    block = DecoderBlock(
        base.self_attention, base.cross_attention, base.feed_forward, norm="post", norms=norms
    )
    x, memory = rng(3).normal(size=(4, 8)), rng(4).normal(size=(5, 8))
    # gain 2, bias 0: every post-LN output is twice the plain normalised stream
    out = block(x, memory).output
    np.testing.assert_allclose(out, 2 * reference_layer_norm(out / 2, 1e-12), atol=1e-10)
    with pytest.raises(ValueError, match="3, one per sublayer"):
        DecoderBlock(base.self_attention, base.cross_attention, base.feed_forward, norms=norms[:2])
