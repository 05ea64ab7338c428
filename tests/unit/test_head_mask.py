"""Switching heads off: the engine's `head_mask` and `PretrainedModel.run(head_mask=...)`.
All ones must change nothing bit for bit; a zero must equal zeroing that head's block of
the concatenation before W_O, computed here independently (plain reference attention in
float64, and MiniLM's layer rebuilt from its safetensors file with loops)."""

from __future__ import annotations

import numpy as np
import pytest
from safetensors.numpy import load_file

from attention import MultiHeadAttention
from attention.models.pretrained import load_pretrained
from tests.support.reference import reference_attention
from tests.support.reference_block import reference_feed_forward, reference_layer_norm

rng = np.random.default_rng


def _weights(mha: MultiHeadAttention) -> dict[str, np.ndarray]:
    names = ("w_q", "w_k", "w_v", "w_o", "b_q", "b_k", "b_v", "b_o")
    return {n: np.asarray(getattr(mha, n), dtype=np.float64) for n in names}


def _heads_off_reference(mha: MultiHeadAttention, x: np.ndarray, scale: np.ndarray) -> np.ndarray:
    """Output with each head's weighted sum of values multiplied by `scale[h]` before W_O."""
    weights = _weights(mha)
    heads = reference_attention(x, **weights)["heads"]  # (h, n, d_head)
    concat = np.concatenate([scale[h] * heads[h] for h in range(mha.n_heads)], axis=1)
    return concat @ weights["w_o"] + weights["b_o"]


# --- the engine --------------------------------------------------------------------------


@pytest.mark.parametrize("ones", [np.ones(4, bool), np.ones(4), np.ones((3, 4), np.float32)])
def test_engine_all_ones_is_no_mask_bit_for_bit(ones):
    mha = MultiHeadAttention(16, 4, seed=1)
    x = rng(0).normal(size=(3, 6, 16))
    plain, masked = mha(x), mha(x, head_mask=ones)
    for name in ("weights", "heads", "concat", "output"):
        np.testing.assert_array_equal(getattr(masked, name), getattr(plain, name))


def test_engine_masked_head_equals_zeroing_its_block_before_w_o():
    mha = MultiHeadAttention(12, 3, seed=2, dtype=np.float64)
    x = rng(1).normal(size=(5, 12))
    for scale in ([1.0, 0.0, 1.0], [0.0, 0.0, 1.0], [0.25, 1.0, 0.0]):
        trace = mha(x, head_mask=np.array(scale))
        np.testing.assert_allclose(trace.output, _heads_off_reference(mha, x, scale), atol=1e-10)
    off = mha(x, head_mask=np.array([True, False, True]))
    assert not off.heads[1].any() and not off.concat[:, 4:8].any()
    np.testing.assert_array_equal(off.weights, mha(x).weights)  # the map it computed stays


def test_engine_masks_each_batch_element_with_its_own_row():
    """One batch of 3 copies of a sentence, each with another head off: the ablation batch."""
    mha = MultiHeadAttention(12, 3, seed=3, dtype=np.float64)
    x = rng(2).normal(size=(5, 12))
    batch = mha(np.repeat(x[None], 3, axis=0), head_mask=~np.eye(3, dtype=bool)).output
    for h in range(3):
        scale = np.ones(3)
        scale[h] = 0.0
        np.testing.assert_allclose(batch[h], _heads_off_reference(mha, x, scale), atol=1e-10)


@pytest.mark.parametrize(
    ("mask", "pieces"),
    [
        (np.ones(3), ["head_mask", "(2, 4)", "got shape (3,)"]),
        (np.ones((5, 4)), ["head_mask", "(2, 4)", "got shape (5, 4)"]),
        (np.full(4, 1.5), ["head_mask", "[0, 1]", "1.5"]),
        (np.array([1.0, -0.5, 1.0, 1.0]), ["head_mask", "[0, 1]", "-0.5"]),
        (np.array([1.0, np.nan, 1.0, 1.0]), ["head_mask", "[0, 1]"]),
        (np.array(["on", "off", "on", "on"]), ["head_mask", "dtype"]),
    ],
)
def test_engine_refuses_bad_head_masks(mask, pieces):
    mha = MultiHeadAttention(16, 4, seed=0)
    with pytest.raises(ValueError) as info:
        mha(np.zeros((2, 3, 16)), head_mask=mask)
    for piece in pieces:
        assert piece in str(info.value)


# --- the real model ------------------------------------------------------------------------

TEXT = "The cat sat on the mat because it was tired."


@pytest.fixture(scope="module")
def model():
    return load_pretrained()


@pytest.fixture(scope="module")
def tensors(model):
    return load_file(str(model.files.directory / "model.safetensors"))


@pytest.mark.parametrize("dtype", [bool, np.float32, np.float64, np.int64])
def test_model_all_ones_is_unablated_bit_for_bit(model, dtype):
    plain = model.run(TEXT)
    ones = model.run(TEXT, head_mask=np.ones((6, 12), dtype))
    for name in ("attentions", "hidden_states", "stream_norms", "update_norms"):
        np.testing.assert_array_equal(getattr(ones, name), getattr(plain, name))


def _reference_layer(tensors, layer: int, x: np.ndarray, scale: np.ndarray) -> np.ndarray:
    """BERT layer `layer` from the checkpoint's own (out, in) tensors, float64, loops for
    attention, LayerNorm and GELU; head h's weighted sum of values times scale[h]."""

    def get(name):
        return tensors[f"encoder.layer.{layer}.{name}"].astype(np.float64)

    def split(role):  # (out, in) → per head (in, d_head)
        return get(f"attention.self.{role}.weight").T.reshape(384, 12, 32).transpose(1, 0, 2)

    def norm(prefix, h):
        return reference_layer_norm(h, 1e-12) * get(f"{prefix}.weight") + get(f"{prefix}.bias")

    heads = reference_attention(
        x,
        split("query"),
        split("key"),
        split("value"),
        get("attention.output.dense.weight").T,
        get("attention.self.query.bias").reshape(12, 32),
        get("attention.self.key.bias").reshape(12, 32),
        get("attention.self.value.bias").reshape(12, 32),
        get("attention.output.dense.bias"),
    )["heads"]
    concat = np.concatenate([scale[h] * heads[h] for h in range(12)], axis=1)
    attended = concat @ get("attention.output.dense.weight").T + get("attention.output.dense.bias")
    middle = norm("attention.output.LayerNorm", x + attended)
    fed = reference_feed_forward(
        middle,
        get("intermediate.dense.weight").T,
        get("intermediate.dense.bias"),
        get("output.dense.weight").T,
        get("output.dense.bias"),
        "gelu",
    )["output"]
    return norm("output.LayerNorm", middle + fed)


def test_model_masked_head_equals_zeroing_it_in_an_independent_layer(model, tensors):
    mask = np.ones((6, 12))
    mask[2, 5] = mask[2, 9] = 0.0
    plain, masked = model.run(TEXT), model.run(TEXT, head_mask=mask)
    # nothing before layer 2's attention output changes, bit for bit
    np.testing.assert_array_equal(masked.hidden_states[:3], plain.hidden_states[:3])
    np.testing.assert_array_equal(masked.attentions[:3], plain.attentions[:3])
    expected = _reference_layer(tensors, 2, masked.hidden_states[2].astype(np.float64), mask[2])
    np.testing.assert_allclose(masked.hidden_states[3], expected, atol=2e-5)
    assert np.abs(masked.hidden_states[3] - plain.hidden_states[3]).max() > 1e-2


def test_model_run_layers_batch_matches_single_masked_runs(model):
    plain = model.run(TEXT)
    masks = np.ones((12, 6, 12), np.float32)
    masks[np.arange(12), 3, np.arange(12)] = 0.0  # batch element h: head h of layer 3 off
    start = np.repeat(plain.hidden_states[3][None], 12, axis=0)
    batch = model.run_layers(start, first_layer=3, head_mask=masks)[-1]
    for h in (0, 7, 11):
        single = model.run(TEXT, head_mask=masks[h]).hidden_states[-1]
        np.testing.assert_allclose(batch[h], single, atol=1e-5)
    np.testing.assert_array_equal(
        model.run_layers(plain.hidden_states[3], first_layer=3), plain.hidden_states[4:]
    )


@pytest.mark.parametrize(
    ("mask", "pieces"),
    [
        (np.ones((6, 11)), ["head_mask", "(6, 12)", "got shape (6, 11)"]),
        (np.ones(72), ["head_mask", "(6, 12)", "(72,)"]),
        (np.full((6, 12), 2.0), ["head_mask", "(6, 12)", "[0, 1]"]),
        (np.full((6, 12), np.nan), ["head_mask", "(6, 12)", "[0, 1]"]),
        (np.full((6, 12), "1"), ["head_mask", "(6, 12)", "dtype"]),
    ],
)
def test_model_refuses_bad_head_masks(model, mask, pieces):
    with pytest.raises(ValueError) as info:
        model.run(TEXT, head_mask=mask)
    for piece in pieces:
        assert piece in str(info.value)
