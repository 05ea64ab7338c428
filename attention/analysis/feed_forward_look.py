"""What the Lesson's feed-forward step measures on one layer of a trained model: that
the network works on each token alone (another token's input changes, this token's
output does not move, while the attention sublayer's does), that it is non-linear (the
GELU units that fire for the focus token), and what its strongest units write, read
through the model's word vectors as Geva et al. (2021) read "key–value memories"."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from attention.core.blocks import EncoderBlock

WORDS_PER_UNIT = 3
STRONGEST_UNITS = 6


@dataclass(frozen=True)
class FeedForwardLook:
    """One layer's feed-forward network seen from the focus token."""

    focus: int
    other: int  # the token whose input is changed
    donor: int  # the token whose input it is given
    focus_moved: float  # ‖Δ feed-forward output‖ at the focus token
    other_moved: float  # ‖Δ feed-forward output‖ at the changed token itself
    attention_moved: float  # ‖Δ attention output‖ at the focus, same change at its input
    pre_activation: np.ndarray  # (d_ff,) the focus token's units before GELU
    hidden: np.ndarray  # (d_ff,) after GELU
    units: tuple[int, ...]  # the strongest units for the focus, strongest first
    writes: np.ndarray  # (len(units),) activation × ‖row of W_2‖: how much each adds

    @property
    def firing(self) -> int:
        """Units with a positive input: GELU passes it on almost unchanged."""
        return int((self.pre_activation > 0).sum())


def pick_change(
    weights: np.ndarray, x: np.ndarray, focus: int, skip: tuple[int, ...] = ()
) -> tuple[int, int]:
    """(other, donor): the token the focus's attention `weights` (n,) favour, and the
    token whose input `x` (n, d_model) is furthest from it; neither the focus nor a
    token in `skip` (e.g. [CLS], [SEP]). ValueError when the sentence is too short."""
    allowed = [j for j in range(len(weights)) if j != focus and j not in skip]
    if len(allowed) < 2:
        raise ValueError("this step needs two tokens besides the one in focus.")
    other = max(allowed, key=lambda j: (float(weights[j]), -j))
    distance = np.linalg.norm(np.asarray(x, np.float64) - np.asarray(x[other], np.float64), axis=1)
    donor = max((j for j in allowed if j != other), key=lambda j: (float(distance[j]), -j))
    return other, donor


def _norm(vector: np.ndarray) -> float:
    return float(np.linalg.norm(np.asarray(vector, dtype=np.float64)))


def look_at_feed_forward(
    block: EncoderBlock, x: np.ndarray, focus: int, other: int, donor: int
) -> FeedForwardLook:
    """Run `block` on its input `x` (n, d_model); then give token `other` the input of
    token `donor`, both at the feed-forward network's input and at the attention's, and
    measure how far the focus token's outputs move."""
    n = x.shape[0]
    if len({focus, other, donor}) < 3 or max(focus, other, donor) >= n:
        raise ValueError("this step needs three different tokens: a sentence of 3 or more.")
    ffn_step = block(x).sublayers[-1]
    ffn_in = np.array(ffn_step.stream_in)
    before = ffn_step.detail
    changed = ffn_in.copy()
    changed[other] = ffn_in[donor]
    after = block.feed_forward(changed).output
    attention = block.self_attention
    x_changed = np.array(x)
    x_changed[other] = x[donor]
    attention_delta = attention(x_changed).output[focus] - attention(x).output[focus]
    hidden = np.asarray(before.hidden[focus], dtype=np.float64)
    rows = np.linalg.norm(np.asarray(block.feed_forward.w_2, dtype=np.float64), axis=1)
    writes = hidden * rows
    units = tuple(int(u) for u in np.argsort(-writes, kind="stable")[:STRONGEST_UNITS])
    return FeedForwardLook(
        focus,
        other,
        donor,
        _norm(after[focus] - before.output[focus]),
        _norm(after[other] - before.output[other]),
        _norm(attention_delta),
        np.asarray(before.pre_activation[focus], dtype=np.float64),
        hidden,
        units,
        writes[list(units)],
    )


def unit_words(
    w_2: np.ndarray,
    units: tuple[int, ...],
    word_vectors: np.ndarray,
    token: Callable[[int], str | None],
    top: int = WORDS_PER_UNIT,
) -> list[list[str]]:
    """For each unit, the vocabulary entries its row of W_2 points at most: the largest
    dot products with the word vectors (vocab, d_model), special entries ([CLS],
    [unused0], …) left out."""
    scores = np.asarray(word_vectors, dtype=np.float64) @ np.asarray(w_2, np.float64)[list(units)].T
    words = []
    for column in scores.T:
        picked: list[str] = []
        for index in np.argsort(-column, kind="stable"):
            entry = token(int(index))
            if entry and not (entry.startswith("[") and entry.endswith("]")):
                picked.append(entry)
            if len(picked) == top:
                break
        words.append(picked)
    return words
