"""§5 "Heads read the whole vector": W_Q as one d_model × (h·d_head) matrix, and what
slicing the embedding would mean instead.

Every head's W_Q[i] has a row for every input coordinate, so each head reads the whole
token vector. "Slicing" would give head i only the coordinates of its own slice
[i·w, (i+1)·w) with w = d_model // h: all its other rows zero.
"""

from __future__ import annotations

import numpy as np


def stacked(w: np.ndarray) -> np.ndarray:
    """Per-head weights (h, d_model, d_head) side by side as one (d_model, h·d_head)
    matrix, head 0's columns first: the layout of the engine's fused projection."""
    w = _check_heads(w)
    h, d_model, d_head = w.shape
    return w.transpose(1, 0, 2).reshape(d_model, h * d_head)


def input_slices(d_model: int, n_heads: int) -> np.ndarray:
    """(n_heads, d_model) boolean: True where coordinate j lies in head i's slice."""
    width = d_model // n_heads
    if width < 1:
        raise ValueError(
            f"n_heads must be at most d_model to give every head a slice; "
            f"got n_heads={n_heads}, d_model={d_model}."
        )
    coords = np.arange(d_model)[None, :]
    starts = (np.arange(n_heads) * width)[:, None]
    return (coords >= starts) & (coords < starts + width)


def sliced(w: np.ndarray) -> np.ndarray:
    """Copy of w (h, d_model, d_head) with every row outside each head's slice set to 0."""
    w = _check_heads(w)
    return w * input_slices(w.shape[1], w.shape[0])[:, :, None]


def slicing_matrices(w_q: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """W_Q (h, d_model, d_head) as it is and as slicing would make it, each stacked into
    one (d_model, h·d_head) matrix: the two matrices the slicing figure draws side by side."""
    return stacked(w_q), stacked(sliced(w_q))


def own_slice_share(w: np.ndarray) -> np.ndarray:
    """(h,) share of each head's squared weights that sits in its own slice's rows: 1 if
    heads sliced the embedding, about 1/h for weights that read every coordinate."""
    w = _check_heads(w)
    total = (w**2).sum(axis=(1, 2))
    inside = (sliced(w) ** 2).sum(axis=(1, 2))
    return np.divide(inside, total, out=np.zeros_like(total), where=total > 0)


def _check_heads(w: np.ndarray) -> np.ndarray:
    w = np.asarray(w)
    if w.ndim != 3:
        raise ValueError(f"w must have shape (n_heads, d_model, d_head); got shape {w.shape}.")
    return w
