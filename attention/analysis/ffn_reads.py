"""How much each unit after the heads draws on each head's block of the concatenation.

The heads' outputs are laid end to end (head 0 first); W_O mixes them into the stream
and the feed-forward network's first matrix W_1 reads the stream, after a LayerNorm
whose gain γ scales each feature (its centring and per-token scale treat every
feature alike). So, along the linear path, head h's d_head numbers reach hidden unit u
through M_h = W_O[block h] · diag(γ) · W_1[:, u]; ‖M_h[:, u]‖ is how strongly unit u
reads head h. The feed-forward network is the same two-layer network applied to each
token on its own: what it knows of the heads is which block of numbers came from which.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from attention.core.blocks import EncoderBlock


@dataclass(frozen=True)
class BlockReads:
    """Per hidden unit (rows) and head (columns): the norm of the unit's weights on the
    head's block, and each unit's shares (rows sum to 1)."""

    strength: np.ndarray  # (d_ff, heads)
    shares: np.ndarray  # (d_ff, heads)

    @property
    def top_share(self) -> np.ndarray:
        """(d_ff,) the share of each unit's reading that its strongest head gives."""
        return self.shares.max(axis=1)

    @property
    def even_share(self) -> float:
        """What every head would give a unit that read them all alike: 1 / heads."""
        return 1.0 / self.shares.shape[1]

    @property
    def median_top_share(self) -> float:
        """The median unit's strongest head's share."""
        return float(np.median(self.top_share))

    def leaning(self, factor: float = 2.0) -> float:
        """The fraction of units whose strongest head gives more than `factor` times an
        even share: units that lean on one head's block."""
        return float((self.top_share > factor * self.even_share).mean())


def head_block_reads(block: EncoderBlock) -> BlockReads:
    """How strongly every feed-forward hidden unit of `block` reads each self-attention
    head's block of the concatenation (see the module docstring)."""
    if block.feed_forward is None:
        raise ValueError(
            "block must have a feed-forward network (its first matrix reads the heads); got "
            "a block without one."
        )
    attention = block.self_attention
    heads, d_head, d_model = attention.n_heads, attention.d_head, attention.d_model
    reads_after = {"post": 0, "pre": 1}.get(block.norm)
    gain = np.ones(d_model) if reads_after is None else block.norms[reads_after].gain
    w_o = np.asarray(attention.w_o, dtype=np.float64).reshape(heads, d_head, d_model)
    paths = (w_o * np.asarray(gain, dtype=np.float64)) @ np.asarray(
        block.feed_forward.w_1, dtype=np.float64
    )  # (heads, d_head, d_ff)
    strength = np.linalg.norm(paths, axis=1).T
    totals = strength.sum(axis=1, keepdims=True)
    shares = np.divide(strength, totals, out=np.zeros_like(strength), where=totals > 0)
    return BlockReads(strength, shares)
