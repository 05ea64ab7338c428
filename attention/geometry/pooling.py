"""Shrinking long attention maps for drawing without breaking what they mean: a pooled
cell is the share of attention a block of queries gives a block of keys (the mean over
the block's queries of the sum over its keys), so pooled rows still sum to 1."""

from __future__ import annotations

import numpy as np


def pool_blocks(n: int, max_cells: int) -> np.ndarray:
    """Start index of each of min(n, max_cells) nearly equal blocks of 0..n-1."""
    return np.array([block[0] for block in np.array_split(np.arange(n), min(n, max_cells))])


def pool_attention(weights: np.ndarray, max_cells: int) -> np.ndarray:
    """Pool (..., n, n) maps to (..., m, m) with m = min(n, max_cells): each cell is the
    mean over its query block of the summed weight on its key block (rows sum to 1)."""
    weights = np.asarray(weights)
    n = weights.shape[-1]
    if n <= max_cells:
        return weights
    starts = pool_blocks(n, max_cells)
    sizes = np.diff(np.append(starts, n))
    keys_summed = np.add.reduceat(weights, starts, axis=-1)
    return np.add.reduceat(keys_summed, starts, axis=-2) / sizes[:, None].astype(weights.dtype)
