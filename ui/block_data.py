"""Cached computation behind "The block around attention": the scenario's heads wrapped
in a block, the rank-collapse stacks (every depth's tokens), and the
hand-built translation example."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

import numpy as np
import streamlit as st

from attention.blocks import BlockTrace, EncoderBlock
from attention.rank_collapse import MAX_DEPTH, collapse_runs, relative_pca
from attention.translation import TranslationModel, TranslationTrace, build_translation_model
from ui import data
from ui.cache_policy import PER_USER_TTL
from ui.scenario import Scenario


def _unfocused(scenario: Scenario) -> Scenario:
    """The focus token changes no number here: keep it out of the cache keys."""
    return dataclasses.replace(scenario, focus=0)


def block_trace(scenario: Scenario, norm: str, activation: str) -> BlockTrace:
    """The scenario's heads in an encoder block with a seeded feed-forward network."""
    return _block_trace(_unfocused(scenario), norm, activation)


@st.cache_data(max_entries=32, ttl=PER_USER_TTL, show_spinner=False)
def _block_trace(scenario: Scenario, norm: str, activation: str) -> BlockTrace:
    run = data.run(scenario)
    block = EncoderBlock.around(run.mha, activation=activation, norm=norm, seed=scenario.seed)
    return block(run.x, causal=scenario.causal, temperature=scenario.temp)


@dataclass(frozen=True)
class CollapseResult:
    """Per variant (no residual, no residual + FFN, residual, residual + FFN): its label,
    switches, distance from rank 1 and the tokens at depths 0…24."""

    labels: tuple[str, ...]
    residual: tuple[bool, ...]
    feed_forward: tuple[bool, ...]
    distances: np.ndarray  # (4, depth + 1)
    states: np.ndarray  # (4, depth + 1, n, d_model)

    def distance(self, residual: bool, feed_forward: bool, depth: int) -> float:
        """Distance from rank 1 of one variant at one depth."""
        pairs = list(zip(self.residual, self.feed_forward, strict=True))
        return float(self.distances[pairs.index((residual, feed_forward)), depth])

    def pictures(self, depth: int) -> list[tuple[str, np.ndarray]]:
        """(label, 2-D PCA of the tokens) per variant at one depth: four small PCAs, cheap
        enough to redo on every move of the depth slider."""
        return [
            (label, relative_pca(states[depth]))
            for label, states in zip(self.labels, self.states, strict=True)
        ]


def rank_collapse(scenario: Scenario, norm: str) -> CollapseResult:
    """Four 24-layer stacks on the scenario's tokens (the depth slider only picks one)."""
    return _rank_collapse(_unfocused(scenario), norm)


@st.cache_data(max_entries=16, ttl=PER_USER_TTL, show_spinner="Stacking 24 layers four ways…")
def _rank_collapse(scenario: Scenario, norm: str) -> CollapseResult:
    run = data.run(scenario)
    runs = collapse_runs(
        run.x,
        depth=MAX_DEPTH,
        n_heads=run.mha.n_heads,
        d_head=run.mha.d_head,
        norm=norm,
        seed=scenario.seed,
        temperature=scenario.temp,
    )
    return CollapseResult(
        tuple(r.label for r in runs),
        tuple(r.residual for r in runs),
        tuple(r.feed_forward for r in runs),
        np.array([r.distances for r in runs]),
        np.array([r.states for r in runs]),
    )


@st.cache_resource(show_spinner=False)
def translation_model() -> TranslationModel:
    return build_translation_model()


@st.cache_data(max_entries=32, ttl=PER_USER_TTL, show_spinner=False)
def translation(source: str, target: str) -> TranslationTrace:
    """The example on one sentence pair; ValueError with a readable message."""
    return translation_model().run(source, target)
