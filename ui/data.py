"""Cached computation behind every page: the scenario's tokens, points, heads and trace,
from one of three sources (toy, real, trained).

Arrays go through st.cache_data (copied per caller), loaded models through
st.cache_resource (one per server), so a slider move recomputes only what it changed.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

import numpy as np
import streamlit as st

from attention import AttentionTrace, MultiHeadAttention
from attention.experiments.training.train import TrainingConfig, trained_heads
from attention.head_spaces import HeadSpaces, head_spaces
from attention.pretrained import ModelError
from attention.toy import MAX_TOY_TOKENS, WordVectors, toy_inputs
from ui import why_heads
from ui.cache_policy import PER_USER_TTL
from ui.real_model import pretrained_model, run_real, vocabulary_embeddings
from ui.scenario import DEFAULT_TEXT, Scenario

REAL_WORDS = (
    "Points: each word's own MiniLM embedding (a word cut into several WordPiece pieces "
    "gets the mean of its pieces), reduced to d_model by one PCA of MiniLM's whole "
    "30,522-word table, so related words stay near each other"
)
HASHED_WORDS = (
    "Points: a seeded random vector per distinct word (MiniLM is not installed, so its "
    "real word embeddings are not available)"
)
TRAINED_NOTICE = (
    "Trained source: the four heads of page 3's small model (variant b, d_model 32), "
    "trained with the sidebar's seed on the two-lookup task, shown on one example "
    "sequence. Only the last token “?” asks anything in that task, so read its row; "
    "the other rows were never trained."
)


@dataclass(frozen=True)
class ScenarioRun:
    """What the pages draw: tokens, their input vectors x (n, d_model), the heads and
    one forward pass, where the points come from, and notices to show."""

    tokens: list[str]
    x: np.ndarray
    mha: MultiHeadAttention
    trace: AttentionTrace
    source: str  # one line on where the points and weights come from
    notices: tuple[str, ...] = ()


def _word_vectors() -> WordVectors | None:
    """MiniLM's vocabulary as word vectors of any width, or None without the model."""
    try:
        vocabulary = vocabulary_embeddings()
    except ModelError:
        return None
    return lambda words, d_model: vocabulary.word_vectors(words, d_model)[0]


@st.cache_resource(max_entries=8, ttl=PER_USER_TTL, show_spinner=False)
def toy_heads(d_model: int, heads: int, d_head: int, seed: int) -> MultiHeadAttention:
    """Seeded random heads: one object per configuration and server."""
    return MultiHeadAttention(d_model, heads, d_head, seed=seed, dtype=np.float64)


def _toy_points(text: str, d_model: int, seed: int, positions: bool):
    words = _word_vectors()
    inputs = toy_inputs(text, d_model, seed=seed, positions=positions, word_vectors=words)
    described = REAL_WORDS if words else HASHED_WORDS
    if positions:
        described += ", plus half a sinusoidal position vector"
    return inputs, described + "."


@st.cache_data(max_entries=64, ttl=PER_USER_TTL, show_spinner=False)
def run_toy(
    text: str,
    d_model: int,
    heads: int,
    d_head: int,
    seed: int,
    temp: float,
    causal: bool,
    positions: bool,
) -> ScenarioRun:
    """The toy source: word vectors (+ positions) through seeded random heads."""
    inputs, described = _toy_points(text, d_model, seed, positions)
    mha = toy_heads(d_model, heads, d_head, seed)
    trace = mha(inputs.x, causal=causal, temperature=temp)
    notices = (inputs.notice,) if inputs.notice else ()
    source = described + f" Weights: random, seed {seed}."
    return ScenarioRun(inputs.tokens, inputs.x, mha, trace, source, notices)


@st.cache_data(max_entries=16, ttl=PER_USER_TTL, show_spinner=False)
def run_real_layer(text: str, layer: int, temp: float, causal: bool) -> ScenarioRun:
    """The real source: MiniLM layer `layer`'s input hidden states (1-based) and its own
    12 heads, re-run by the engine so temperature and the causal mask apply."""
    real = run_real(text).trace
    x = real.hidden_states[layer - 1]
    mha = pretrained_model().attention_layer(layer - 1)
    trace = mha(x, causal=causal, temperature=temp)
    source = (
        f"Points: the {len(real.tokens)} WordPiece tokens as they enter MiniLM's layer "
        f"{layer} (its hidden states). Weights: that layer's own 12 trained heads."
    )
    notices = (real.notice,) if real.notice else ()
    return ScenarioRun(real.tokens, x, mha, trace, source, notices)


@st.cache_data(max_entries=16, ttl=PER_USER_TTL, show_spinner=False)
def run_trained(seed: int, temp: float, causal: bool) -> ScenarioRun:
    """The small model trained on page 3 (variant b: h heads of d_model/h)."""
    comparison = why_heads.train(TrainingConfig(), seed)
    mha, tokens, x = trained_heads(comparison, "split")
    trace = mha(x, causal=causal, temperature=temp)
    source = "Points: the two-lookup task's example sequence (symbol + mark + position)."
    return ScenarioRun(tokens, x, mha, trace, source, (TRAINED_NOTICE,))


class SourceUnavailableError(Exception):
    """The chosen source cannot run here; the message says why and what to do."""


def run(scenario: Scenario) -> ScenarioRun:
    """Compute (or fetch from cache) the scenario; empty text falls back to the default
    sentence with a notice. Raises SourceUnavailableError for the real source without MiniLM."""
    if scenario.source == "trained":
        with st.spinner("Training page 3's small model for this seed (a few seconds, once)…"):
            return run_trained(scenario.seed, scenario.temp, scenario.causal)
    text = scenario.text if scenario.text.strip() else DEFAULT_TEXT
    if scenario.source == "real":
        try:
            result = run_real_layer(text, scenario.layer, scenario.temp, scenario.causal)
        except ModelError as error:
            raise SourceUnavailableError(str(error)) from error
    else:
        result = run_toy(
            text,
            scenario.d_model,
            scenario.heads,
            scenario.resolved_d_head,
            scenario.seed,
            scenario.temp,
            scenario.causal,
            scenario.positions,
        )
    if text is not scenario.text:
        notice = "The sentence is empty: showing the default sentence until you type one."
        result = dataclasses.replace(result, notices=(notice, *result.notices))
    return result


def spaces(scenario: Scenario) -> HeadSpaces:
    """Every head's 2-D pictures for the scenario (they do not depend on the focus)."""
    return _spaces(dataclasses.replace(scenario, focus=0))


@st.cache_data(max_entries=64, ttl=PER_USER_TTL, show_spinner=False)
def _spaces(scenario: Scenario) -> HeadSpaces:
    result = run(scenario)
    return head_spaces(result.x, result.trace)


@dataclass(frozen=True)
class CrossRun:
    """Cross-attention: queries from a second text, keys and values from the scenario's."""

    query_tokens: list[str]
    key_tokens: list[str]
    trace: AttentionTrace
    notices: tuple[str, ...]


def cross_run(scenario: Scenario, query_text: str) -> CrossRun:
    """Cross-attention of `query_text` over the scenario's sentence (see _cross_run)."""
    return _cross_run(dataclasses.replace(scenario, focus=0), query_text)


@st.cache_data(max_entries=32, ttl=PER_USER_TTL, show_spinner=False)
def _cross_run(scenario: Scenario, query_text: str) -> CrossRun:
    """Queries from `query_text`, made the same way as the scenario's own points (the
    toy source's word vectors, or the real source's hidden states at the same layer),
    attend over the scenario's sentence with the scenario's heads. Both sides are cut
    to 64 tokens so the rectangular maps stay readable."""
    keys = run(scenario)
    notices = []
    if scenario.source == "real":
        real = run_real(query_text).trace
        query_tokens, query_x = real.tokens, real.hidden_states[scenario.layer - 1]
    else:
        queries, _ = _toy_points(query_text, scenario.d_model, scenario.seed, scenario.positions)
        query_tokens, query_x = queries.tokens, queries.x
    key_tokens, key_x = keys.tokens, keys.x
    if max(len(query_tokens), len(key_tokens)) > MAX_TOY_TOKENS:
        notices.append(
            f"Cross-attention shows at most {MAX_TOY_TOKENS} tokens per side: "
            "the rest are left out."
        )
        query_tokens, query_x = query_tokens[:MAX_TOY_TOKENS], query_x[:MAX_TOY_TOKENS]
        key_tokens, key_x = key_tokens[:MAX_TOY_TOKENS], key_x[:MAX_TOY_TOKENS]
    trace = keys.mha(query_x, context=key_x, temperature=scenario.temp)
    return CrossRun(query_tokens, key_tokens, trace, tuple(notices))
