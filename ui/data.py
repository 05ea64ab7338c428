"""Cached computation behind every page: the scenario's tokens, points, heads and trace,
from one of three sources (toy, real, trained).

Small results go through st.cache_data (copied per caller); loaded models and the
scenario's run go through st.cache_resource (one object per server, every array in it
read-only): a real-source run at 512 tokens is ~33 MB, which st.cache_data would pickle
into its 64 MB budget (.streamlit/config.toml) and copy on every rerun. So a slider move
recomputes only what it changed. Every cache keyed on a scenario goes through
`cached_per_computation`, the one place that reduces a scenario to what its computation
depends on (Scenario.computation).
"""

from __future__ import annotations

import dataclasses
import functools
from collections.abc import Callable
from dataclasses import dataclass
from typing import ParamSpec, TypeVar

import numpy as np
import streamlit as st

from attention import AttentionTrace, MultiHeadAttention
from attention.core.read_only import read_only
from attention.experiments.training.task import TASK_TEXTS
from attention.experiments.training.train import TrainingConfig, example_tokens, trained_heads
from attention.geometry.head_spaces import HeadSpaces, head_spaces
from attention.models.pretrained import ModelError
from attention.models.toy import MAX_TOY_TOKENS, WordVectors, split_words, toy_inputs, word_spans
from ui.cache_policy import PER_USER_TTL
from ui.pretrained import pretrained_model, reading_notice, run_real, vocabulary_embeddings
from ui.why_heads import experiments as why_heads
from view_state.scenario import DEFAULT_TEXT, Scenario

REAL_WORDS = (
    "Points: each word's own MiniLM embedding (a word cut into several WordPiece pieces "
    "gets the mean of its pieces), reduced to d_model by one PCA of MiniLM's whole "
    "30,522-word table, so related words stay near each other"
)
HASHED_WORDS = (
    "Points: a seeded random vector per distinct word (MiniLM is not installed, so its "
    "real word embeddings are not available)"
)


def trained_notice(config: TrainingConfig) -> str:
    """What the trained source shows, with the model's own sizes and query token."""
    return (
        f"Trained source: the {config.n_heads} heads of page 3's small model (variant b, "
        f"d_model {config.d_model}), trained with the sidebar's seed on the two-lookup task, "
        f"shown on one example sequence. Only the last token “{TASK_TEXTS.query}” asks "
        "anything in that task, so read its row; the other rows were never trained."
    )


EMPTY_TEXT_NOTICE = "The sentence is empty: showing the default sentence until you type one."

P = ParamSpec("P")
R = TypeVar("R")


class SourceUnavailableError(Exception):
    """The chosen source cannot run here; the message says why and what to do."""


def cached_per_computation(shared: bool = False, **cache_options: object) -> Callable:
    """st.cache_data for functions whose first argument is a Scenario, keyed on what the
    scenario's computation depends on, so e.g. a new focus token hits the cache. With
    `shared`, st.cache_resource instead: one result for every caller, never pickled or
    copied, with every array in it made read-only (for results too large to copy)."""

    def decorate(function: Callable[P, R]) -> Callable[P, R]:
        if shared:

            @functools.wraps(function)
            def computed_read_only(*args: object) -> R:
                return read_only(function(*args))

            cached = st.cache_resource(**cache_options)(computed_read_only)
        else:
            cached = st.cache_data(**cache_options)(function)

        @functools.wraps(function)
        def call(scenario: Scenario, *args: object) -> R:
            return cached(scenario.computation(), *args)

        return call

    return decorate


@dataclass(frozen=True)
class Tokens:
    """A source's tokens for a text and the character span each covers in the text
    (None where a token has no characters: [CLS], [SEP], or the trained task's labels)."""

    tokens: list[str]
    spans: list[tuple[int, int] | None]


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


def shown_text(text: str) -> str:
    """The text the pages use: the default sentence while the box is empty."""
    return text if text.strip() else DEFAULT_TEXT


def text_shown(text: str) -> str:
    """The text a page shows, and while the box is empty the notice that says the default
    sentence stands in for it (the same words on every page)."""
    if not text.strip():
        st.info(EMPTY_TEXT_NOTICE)
    return shown_text(text)


@st.cache_data(max_entries=64, ttl=PER_USER_TTL, show_spinner=False)
def tokens(text: str, kind: str, seed: int = 0) -> Tokens:
    """The tokens a source makes of `text` (kind: toy, real or trained), without running
    any model: cheap enough for the sidebar's focus picker on every rerun."""
    text = shown_text(text)
    if kind == "trained":
        labels = example_tokens(TrainingConfig(), seed)
        return Tokens(labels, [None] * len(labels))
    if kind == "real":
        try:
            tokenized = pretrained_model().tokenizer.encode(text)
        except ModelError as error:
            raise SourceUnavailableError(str(error)) from error
        return Tokens(tokenized.tokens, list(tokenized.spans))
    words, _ = split_words(text)
    return Tokens(words, list(word_spans(text)[: len(words)]))


def _word_vectors() -> WordVectors | None:
    """MiniLM's vocabulary as word vectors of any width, or None without the model."""
    try:
        vocabulary = vocabulary_embeddings()
    except ModelError:
        return None
    return lambda words, d_model: vocabulary.word_vectors(words, d_model)[0]


@st.cache_resource(max_entries=8, ttl=PER_USER_TTL, show_spinner=False)
def toy_heads(d_model: int, heads: int, d_head: int, seed: int) -> MultiHeadAttention:
    """Seeded random heads: one read-only object per configuration and server."""
    return read_only(MultiHeadAttention(d_model, heads, d_head, seed=seed, dtype=np.float64))


def _toy_points(text: str, d_model: int, seed: int, positions: bool):
    words = _word_vectors()
    inputs = toy_inputs(text, d_model, seed=seed, positions=positions, word_vectors=words)
    described = REAL_WORDS if words else HASHED_WORDS
    if positions:
        described += ", plus half a sinusoidal position vector"
    return inputs, described + "."


def _run_toy(s: Scenario) -> ScenarioRun:
    """The toy source: word vectors (+ positions) through seeded random heads."""
    inputs, described = _toy_points(s.text, s.d_model, s.seed, s.positions)
    mha = toy_heads(s.d_model, s.heads, s.resolved_d_head, s.seed)
    trace = mha(inputs.x, causal=s.causal, temperature=s.temp)
    notices = (inputs.notice,) if inputs.notice else ()
    source = described + f" Weights: random, seed {s.seed}."
    return ScenarioRun(inputs.tokens, inputs.x, mha, trace, source, notices)


def _run_real(s: Scenario) -> ScenarioRun:
    """The real source: MiniLM layer `layer`'s input hidden states (1-based) and its own
    heads, re-run by the engine so temperature and the causal mask apply."""
    real = run_real(s.text).trace
    x = real.hidden_states[s.layer - 1]
    mha = pretrained_model().attention_layer(s.layer - 1)
    trace = mha(x, causal=s.causal, temperature=s.temp)
    source = (
        f"Points: the {len(real.tokens)} WordPiece tokens as they enter MiniLM's layer "
        f"{s.layer} (its hidden states). Weights: that layer's own {mha.n_heads} trained heads."
    )
    notices = tuple(n for n in (real.notice, reading_notice(s.text, real.tokens)) if n)
    return ScenarioRun(real.tokens, x, mha, trace, source, notices)


def _run_trained(s: Scenario) -> ScenarioRun:
    """The small model trained on page 3 (variant b: h heads of d_model/h)."""
    comparison = why_heads.train(TrainingConfig(), s.seed)
    mha, labels, x = trained_heads(comparison, "split")
    trace = mha(x, causal=s.causal, temperature=s.temp)
    source = "Points: the two-lookup task's example sequence (symbol + mark + position)."
    return ScenarioRun(labels, x, mha, trace, source, (trained_notice(TrainingConfig()),))


_RUNNERS = {"toy": _run_toy, "real": _run_real, "trained": _run_trained}


# Shared, not copied: a real-source run at 512 tokens is ~33 MB (12 maps of 512 × 512
# scores and weights), and 16 of them stay within what the server already keeps for
# run_real's eight 75-MB traces; the toy and trained sources' runs are far smaller.
@cached_per_computation(shared=True, ttl=PER_USER_TTL, max_entries=16, show_spinner=False)
def _run(scenario: Scenario) -> ScenarioRun:
    try:
        return _RUNNERS[scenario.source](scenario)
    except ModelError as error:
        raise SourceUnavailableError(str(error)) from error


def run(scenario: Scenario) -> ScenarioRun:
    """Compute (or fetch from the shared cache: its arrays are read-only) the scenario;
    empty text falls back to the default sentence with a notice. Raises
    SourceUnavailableError for the real source without MiniLM."""
    if scenario.source == "trained":
        with st.spinner("Training page 3's small model for this seed (a few seconds, once)…"):
            return _run(scenario)
    result = _run(scenario)
    if not scenario.text.strip():
        result = dataclasses.replace(result, notices=(EMPTY_TEXT_NOTICE, *result.notices))
    return result


@cached_per_computation(ttl=PER_USER_TTL, max_entries=64, show_spinner=False)
def spaces(scenario: Scenario) -> HeadSpaces:
    """Every head's 2-D pictures for the scenario (they do not depend on the focus)."""
    result = run(scenario)
    return head_spaces(result.x, result.trace)


@dataclass(frozen=True)
class CrossRun:
    """Cross-attention: queries from a second text, keys and values from the scenario's."""

    query_tokens: list[str]
    key_tokens: list[str]
    trace: AttentionTrace
    notices: tuple[str, ...]


@cached_per_computation(ttl=PER_USER_TTL, max_entries=32, show_spinner=False)
def cross_run(scenario: Scenario, query_text: str) -> CrossRun:
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
