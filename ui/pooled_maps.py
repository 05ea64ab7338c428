"""Attention maps made ready for `attention_grid`: long self-attention maps pooled into
blocks before drawing (the builder only draws), every other map as it is."""

from __future__ import annotations

import numpy as np

from attention.figures.attention_maps import MAX_GRID_CELLS, block_labels
from attention.geometry.pooling import pool_attention, pool_blocks


def maps_to_draw(
    weights: np.ndarray,
    query_tokens: list[str],
    key_tokens: list[str] | None = None,
    scores: np.ndarray | None = None,
    allowed: np.ndarray | None = None,
    self_attention: bool = False,
    max_cells: int = MAX_GRID_CELLS,
    **options: object,
) -> dict:
    """`attention_grid`'s maps, tokens, scores and mask. Self-attention maps (the keys
    are the queries' own tokens) longer than `max_cells` are pooled to `max_cells`
    blocks a side (rows still sum to 1), with one label per block and each block's first
    token number; a pooled map has no per-cell score or mask to show. The grid's other
    `options` pass through unchanged."""
    if not self_attention or len(query_tokens) <= max_cells:
        return {
            "weights": weights,
            "query_tokens": query_tokens,
            "key_tokens": key_tokens,
            "scores": scores,
            "allowed": allowed,
            **options,
        }
    return {
        "weights": pool_attention(weights, max_cells),
        "query_tokens": block_labels(query_tokens, max_cells),
        "block_starts": pool_blocks(len(query_tokens), max_cells),
        **options,
    }
