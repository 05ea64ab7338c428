"""Shared weights and shared cached results are read-only: writing into them raises
instead of silently changing what every other run (every session) sees."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pytest

from attention.core.read_only import read_only
from attention.models.pretrained import ModelError, load_pretrained
from attention.models.translation import build_translation_model
from attention.models.translation.examples import EXAMPLES


def _must_not_write(array: np.ndarray) -> None:
    with pytest.raises(ValueError, match="read-only"):
        array[...] = 0


@dataclass(frozen=True)
class _Holder:
    arrays: dict
    pair: tuple


class _Plain:
    def __init__(self, inner: _Holder) -> None:
        self.inner = inner
        self.itself = self  # a cycle: the walk must end


def test_read_only_reaches_nested_arrays_in_place_without_copying():
    deep = np.arange(4.0)
    held = _Plain(_Holder({"a": deep}, (np.ones(2), [np.zeros(3)])))
    assert read_only(held) is held
    assert held.inner.arrays["a"] is deep
    for array in (deep, held.inner.pair[0], held.inner.pair[1][0]):
        _must_not_write(array)


@pytest.fixture(scope="module")
def minilm():
    try:
        return load_pretrained()
    except ModelError as error:
        pytest.skip(str(error))


def test_minilm_weights_are_read_only(minilm):
    block = minilm.block(0)
    attention = block.self_attention
    for weights in (minilm.word_embeddings, attention.w_q, attention.w_o, attention.b_o):
        _must_not_write(weights)
    with pytest.raises(ValueError):
        attention.w_k = np.zeros_like(attention.w_k)  # the setter writes into the fused matrix


def test_minilm_runs_and_hands_out_writable_heads_of_its_own(minilm):
    """Read-only weights do not stop a forward pass, and attention_layer's copy is the
    caller's to change, as its docstring says."""
    trace = minilm.run("The cat sat on the mat.")
    assert np.allclose(trace.attentions.sum(axis=-1), 1.0, atol=1e-5)
    own = minilm.attention_layer(0)
    own.w_q[...] = 0
    assert np.any(minilm.block(0).self_attention.w_q != 0)


def test_translation_model_weights_are_read_only():
    model = build_translation_model()
    for mha in (model.encoder.self_attention, model.decoder.cross_attention):
        _must_not_write(mha.w_q)
        _must_not_write(mha.w_o)
    example = EXAMPLES[0]
    assert model.run(example.english, example.german).cross_weights.shape[0] > 0


def test_a_512_token_real_run_is_one_shared_read_only_object(minilm):
    """Not st.cache_data (which would pickle ~33 MB into its 64 MB budget and hand each
    caller a fresh copy): two calls get the very same arrays, and they cannot be written."""
    from ui import data
    from view_state.scenario import Scenario

    scenario = Scenario(source="real", text="word " * 600, focus=3)
    first = data.run(scenario)
    again = data.run(Scenario(source="real", text="word " * 600, focus=7))
    assert first.x.shape[0] == 512
    assert again.trace is first.trace and again.x is first.x
    for array in (first.x, first.trace.weights, first.trace.q, first.mha.w_q):
        _must_not_write(array)


def test_toy_runs_and_their_heads_are_shared_read_only():
    from ui import data
    from view_state.scenario import Scenario

    # A seed no other test uses: a run cached by an earlier test may outlive the
    # toy_heads entry it was made from (the two caches evict separately).
    run = data.run(Scenario(heads=2, seed=4242))
    assert data.run(Scenario(heads=2, focus=2, seed=4242)).trace is run.trace
    assert data.toy_heads(64, 2, 32, 4242) is run.mha
    for array in (run.trace.weights, run.x, run.mha.w_v, run.mha.b_o):
        _must_not_write(array)
