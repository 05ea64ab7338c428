"""The playground's head ("Move the query yourself"): the lecture's two fitted heads with
2-D query/key spaces, where the student moves the query of "du" and the keys by hand.

A dragged point is a position in the head's own query/key space, so nothing is projected:
`head_trace` hands the moved vectors to the engine (cross-attention with selector
weights), which is how the server checks challenges and how tests check the browser's
numbers. Positions travel in links as "x,y;x,y"; `parse_points` refuses anything else.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from attention.core.engine import AttentionTrace, MultiHeadAttention
from attention.teaching.lecture_picture import QUERY, LectureFit

BOUND = 4.0  # every point stays in [-BOUND, BOUND]² (the plot's square)
D_HEAD = 2


@dataclass(frozen=True)
class HeadPoints:
    """One head's points: the focus token's query (2,), every token's key and value (n, 2)."""

    query: np.ndarray
    keys: np.ndarray
    values: np.ndarray


@dataclass(frozen=True)
class Playground:
    """The sentence's tokens, which token queries, and each head's points as fitted."""

    tokens: tuple[str, ...]
    query_index: int
    heads: tuple[HeadPoints, ...]


def playground_from_fit(fit: LectureFit) -> Playground:
    """The lecture fit's points for the focus token "du", per head, as the engine made them."""
    query = fit.sentence.index(QUERY)
    trace = fit.trace
    heads = tuple(
        HeadPoints(trace.q[h, query].copy(), trace.k[h].copy(), trace.v[h].copy())
        for h in range(trace.q.shape[0])
    )
    return Playground(fit.sentence.tokens, query, heads)


def head_trace(
    query: np.ndarray, keys: np.ndarray, values: np.ndarray, temperature: float = 1.0
) -> AttentionTrace:
    """The engine's pass for one query over given keys and values, all in the head's own
    2-D spaces: inputs [k | v] and selector weights, so the engine computes exactly
    q·k/(√2·T), the softmax and the weighted sum of the values. Float64."""
    eye, zero = np.eye(D_HEAD), np.zeros((D_HEAD, D_HEAD))
    w_q = np.vstack([eye, zero])[None]
    w_k = np.vstack([eye, zero])[None]
    w_v = np.vstack([zero, eye])[None]
    w_o = np.hstack([zero, eye])
    mha = MultiHeadAttention.from_weights(w_q, w_k, w_v, w_o, dtype=np.float64)
    x = np.concatenate([np.asarray(query, np.float64), np.zeros(D_HEAD)])[None]
    context = np.hstack([np.asarray(keys, np.float64), np.asarray(values, np.float64)])
    return mha(x, context=context, temperature=temperature)


def clamp(points: np.ndarray) -> np.ndarray:
    """Points kept inside the plot's square."""
    return np.clip(np.asarray(points, np.float64), -BOUND, BOUND)


def parse_points(raw: str, count: int) -> np.ndarray:
    """`count` points written "x,y;x,y;…", each coordinate a finite number within ±BOUND;
    anything else raises ValueError (a link's junk falls back to the model's points)."""
    pairs = raw.split(";")
    if len(pairs) != count:
        raise ValueError(f"raw must hold {count} points x,y separated by ';'; got {len(pairs)}.")
    points = []
    for pair in pairs:
        parts = pair.split(",")
        if len(parts) != 2:
            raise ValueError(f"each point in raw must be two numbers x,y; got {pair!r}.")
        xy = [float(part) for part in parts]
        if not all(math.isfinite(v) and abs(v) <= BOUND for v in xy):
            raise ValueError(
                f"each coordinate in raw must be a finite number within ±{BOUND:g}; got {pair!r}."
            )
        points.append(xy)
    return np.array(points, dtype=np.float64)


def format_points(points: np.ndarray) -> str:
    """Points as a link writes them (four decimals: a hundredth of a pixel on screen)."""
    return ";".join(f"{x:.4f},{y:.4f}" for x, y in np.asarray(points).reshape(-1, 2))
