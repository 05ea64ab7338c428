"""Cached computation behind "The block around attention": the scenario's heads wrapped
in a block and the rank-collapse stacks (every depth's tokens). The translation
example's cache is ui/translation.py."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from attention.analysis.ffn_reads import BlockReads, head_block_reads
from attention.analysis.rank_collapse import MAX_DEPTH, collapse_runs, relative_pca
from attention.core.blocks import BlockTrace, EncoderBlock
from ui import data
from ui.cache_policy import PER_USER_TTL
from ui.data import cached_per_computation
from view_state.scenario import Scenario


@cached_per_computation(ttl=PER_USER_TTL, max_entries=32, show_spinner=False)
def block_trace(scenario: Scenario, norm: str, activation: str) -> BlockTrace:
    """The scenario's heads in an encoder block with a seeded feed-forward network; the
    attention the scenario's run already computed is reused where the block reads the
    same input (post-LN: attention sees the stream itself)."""
    run = data.run(scenario)
    return _block(scenario, norm, activation)(
        run.x,
        causal=scenario.causal,
        temperature=scenario.temp,
        attention=run.trace if norm == "post" else None,
    )


def _block(scenario: Scenario, norm: str, activation: str) -> EncoderBlock:
    """The scenario's heads wrapped in a block with a feed-forward network drawn from the
    scenario's seed."""
    mha = data.run(scenario).mha
    return EncoderBlock.around(mha, activation=activation, norm=norm, seed=scenario.seed)


@cached_per_computation(ttl=PER_USER_TTL, max_entries=32, show_spinner=False)
def block_reads(scenario: Scenario, norm: str, activation: str) -> BlockReads:
    """How the scenario block's feed-forward units read each head's block."""
    return head_block_reads(_block(scenario, norm, activation))


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


@cached_per_computation(
    ttl=PER_USER_TTL, max_entries=16, show_spinner="Stacking 24 layers four ways…"
)
def rank_collapse(scenario: Scenario, norm: str) -> CollapseResult:
    """Four 24-layer stacks on the scenario's tokens (the depth slider only picks one)."""
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
