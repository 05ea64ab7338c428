"""Cached computation behind every page: the scenario's tokens, points, heads and trace.

Arrays go through st.cache_data (copied per caller), loaded models through
st.cache_resource (one per server), so a slider move recomputes only what it changed.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import streamlit as st

from attention import AttentionTrace, MultiHeadAttention
from attention.experiments.training.train import TrainingConfig, trained_heads
from attention.head_spaces import HeadSpaces, head_spaces
from attention.toy import toy_inputs
from ui import why_heads
from ui.scenario import DEFAULT_TEXT, Scenario


@dataclass(frozen=True)
class ScenarioRun:
    """What the pages draw: tokens, their input vectors x (n, d_model), the heads and
    one forward pass, plus notices to show (text cut, defaults used)."""

    tokens: list[str]
    x: np.ndarray
    mha: MultiHeadAttention
    trace: AttentionTrace
    notices: tuple[str, ...]


@st.cache_resource(max_entries=16, show_spinner=False)
def toy_heads(d_model: int, heads: int, d_head: int, seed: int) -> MultiHeadAttention:
    """Seeded random heads: one object per configuration and server."""
    return MultiHeadAttention(d_model, heads, d_head, seed=seed, dtype=np.float64)


@st.cache_data(max_entries=64, show_spinner=False)
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
    inputs = toy_inputs(text, d_model, seed=seed, positions=positions)
    mha = toy_heads(d_model, heads, d_head, seed)
    trace = mha(inputs.x, causal=causal, temperature=temp)
    notices = (inputs.notice,) if inputs.notice else ()
    return ScenarioRun(inputs.tokens, inputs.x, mha, trace, notices)


TRAINED_NOTICE = (
    "Trained source: the four heads of page 3's small model (variant b, d_model 32), "
    "trained with the sidebar's seed on the two-lookup task, shown on one example "
    "sequence. Only the last token “?” asks anything in that task, so read its row; "
    "the other rows were never trained."
)


@st.cache_data(max_entries=16, show_spinner=False)
def run_trained(seed: int, temp: float, causal: bool) -> ScenarioRun:
    """The small model trained on page 3 (variant b: h heads of d_model/h)."""
    comparison = why_heads.train(TrainingConfig(), seed)
    mha, tokens, x = trained_heads(comparison, "split")
    trace = mha(x, causal=causal, temperature=temp)
    return ScenarioRun(tokens, x, mha, trace, (TRAINED_NOTICE,))


def run(scenario: Scenario) -> ScenarioRun:
    """Compute (or fetch from cache) the scenario; empty text falls back to the default
    sentence with a notice."""
    if scenario.source == "trained":
        with st.spinner("Training page 3's small model for this seed (a few seconds, once)…"):
            return run_trained(scenario.seed, scenario.temp, scenario.causal)
    text = scenario.text if scenario.text.strip() else DEFAULT_TEXT
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
        result = ScenarioRun(
            result.tokens, result.x, result.mha, result.trace, (notice, *result.notices)
        )
    return result


@st.cache_data(max_entries=64, show_spinner=False)
def spaces(scenario: Scenario) -> HeadSpaces:
    """Every head's 2-D pictures for the scenario (independent of the focus token)."""
    result = run(scenario)
    return head_spaces(result.x, result.trace)


@dataclass(frozen=True)
class CrossRun:
    """Cross-attention: queries from a second text, keys and values from the scenario's."""

    query_tokens: list[str]
    key_tokens: list[str]
    trace: AttentionTrace
    notices: tuple[str, ...]


@st.cache_data(max_entries=32, show_spinner=False)
def cross_run(scenario: Scenario, query_text: str) -> CrossRun:
    """Queries from `query_text` (embedded like the scenario's own tokens) attend over
    the scenario's sentence with the scenario's heads."""
    keys = run(scenario)
    queries = toy_inputs(
        query_text, scenario.d_model, seed=scenario.seed, positions=scenario.positions
    )
    trace = keys.mha(queries.x, context=keys.x, temperature=scenario.temp)
    notices = (queries.notice,) if queries.notice else ()
    return CrossRun(queries.tokens, keys.tokens, trace, notices)
