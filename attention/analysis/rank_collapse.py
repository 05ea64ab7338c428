"""Why the residual stream matters: stack attention layers and watch the tokens merge.

Dong, Cordonnier & Loukas (2021), "Attention is not all you need: pure attention loses
rank doubly exponentially with depth": every attention output row is a weighted average
of value rows, so layer after layer the tokens are pulled together until all rows are
(almost) the same vector, X ≈ 1 xᵀ. Skip connections stop it.

The measure here is the relative distance from that collapsed form in the Frobenius
norm, ‖X − 1 x̄ᵀ‖_F / ‖X‖_F with x̄ the mean token (the closest 1 xᵀ in that norm).
Dong et al. use a composite ℓ1,ℓ∞ norm and no division; the relative Frobenius form is
scale-free (the residual stream's norm grows with depth) and lies in [0, 1].

All four variants (with/without residual, with/without feed-forward) run through the
same seeded layers, in float64 so the fall is visible down to ~1e-16 instead of
stopping at float32's ~1e-7.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from attention.core.blocks import BlockConfig, EncoderBlock, child_seeds
from attention.core.layers import FeedForward
from attention.core.validation import check_positive_int
from attention.geometry.planes import pca_2d

MAX_DEPTH = 24


def distance_from_rank_one(x: np.ndarray) -> np.ndarray:
    """‖X − 1 x̄ᵀ‖_F / ‖X‖_F over the last two axes (tokens × features): 0 when all
    tokens are the same vector (also when X is all zeros), near 1 when they are spread
    around the origin."""
    x = np.asarray(x, dtype=np.float64)
    spread = np.linalg.norm(x - x.mean(axis=-2, keepdims=True), axis=(-2, -1))
    size = np.linalg.norm(x, axis=(-2, -1))
    return np.divide(spread, size, out=np.zeros_like(size), where=size > 0)


@dataclass(frozen=True)
class CollapseRun:
    """The tokens after each layer of one stack variant."""

    residual: bool
    feed_forward: bool
    states: np.ndarray  # (depth + 1, n, d_model): the input first, then after each layer

    @property
    def label(self) -> str:
        layers = "attention + FFN" if self.feed_forward else "attention"
        return f"{layers}, {'residual' if self.residual else 'no residual'}"

    @property
    def distances(self) -> np.ndarray:
        """(depth + 1,) distance from rank 1 of the input and after each layer."""
        return distance_from_rank_one(self.states)


def seeded_layers(
    d_model: int, depth: int, n_heads: int, d_head: int | None, norm: str, seed: int | None
) -> list[EncoderBlock]:
    """The stacks' `depth` float64 encoder layers, each drawn from its own child seed."""
    return [
        EncoderBlock.random(
            BlockConfig(d_model, n_heads, d_head, norm=norm, seed=layer_seed, dtype=np.float64)
        )
        for layer_seed in child_seeds(seed, depth)
    ]


def collapse_runs(
    x: np.ndarray,
    depth: int = MAX_DEPTH,
    n_heads: int = 4,
    d_head: int | None = None,
    norm: str = "pre",
    seed: int | None = 0,
    temperature: float = 1.0,
) -> list[CollapseRun]:
    """Push tokens x (n, d_model) through `depth` seeded encoder layers in four variants:
    residual on/off × feed-forward on/off, the same weights in all four."""
    depth = check_positive_int("depth", depth)
    x = np.asarray(x, dtype=np.float64)
    if x.ndim != 2:
        raise ValueError(f"x must have shape (n_tokens, d_model); got shape {x.shape}.")
    layers = seeded_layers(x.shape[1], depth, n_heads, d_head, norm, seed)
    runs = []
    for residual in (False, True):
        for with_ffn in (False, True):
            states = [x]
            for layer in layers:
                ffn: FeedForward | None = layer.feed_forward if with_ffn else None
                block = EncoderBlock(layer.self_attention, ffn, norm, residual)
                states.append(block(states[-1], temperature=temperature).output)
            runs.append(CollapseRun(residual, with_ffn, np.array(states)))
    return runs


def relative_pca(states: np.ndarray) -> np.ndarray:
    """(n, 2) PCA of one token matrix, in units of the tokens' root-mean-square norm, so
    collapsed tokens sit on one point instead of being blown up to fill the plot."""
    states = np.asarray(states, dtype=np.float64)
    rms = np.linalg.norm(states) / np.sqrt(len(states))
    coords = pca_2d(states).coords
    return coords / rms if rms > 0 else coords


FLOAT64_LEVEL = 1e-15  # distances this small are float64 rounding: the tokens are identical


def depth_reaching(distances: np.ndarray, level: float = FLOAT64_LEVEL) -> int | None:
    """The first depth at which the distance from rank 1 is at or below `level`, or None."""
    below = np.flatnonzero(np.asarray(distances) <= level)
    return int(below[0]) if below.size else None


def log_growth(distances: np.ndarray) -> float | None:
    """The median factor by which log(distance) grows from one layer to the next while
    the distance is between float64 rounding and 0.5: about 1 for an exponential fall,
    above 1 for a doubly exponential one (Dong et al., 2021). None with under two steps."""
    d = np.asarray(distances, dtype=np.float64)
    inside = (d[:-1] > FLOAT64_LEVEL) & (d[:-1] < 0.5) & (d[1:] > 0)
    if inside.sum() < 2:
        return None
    steps = np.log(d[1:][inside]) / np.log(d[:-1][inside])
    return float(np.median(steps))
