"""The word vectors of the translation example: every dimension is a named feature.

A word's vector holds 1 for each of its meanings ("meaning: cat"), its part of speech,
its grammatical features, its language, "always" (a constant for "every word" terms),
then position features, and finally "context: …" features where the heads write what
they gathered (zero on input). The decoder's start token `<s>` has only "start",
"always" and its position.

Positions use the frequencies ω_k = πk/64, k = 0 … 64: cos ω_k i for every k and
sin ω_k i for k = 1 … 63 (sin 0 and sin πi are always 0). With half weight on k = 0 and
k = 64, Σ_k w_k cos(ω_k (i − j)) is 64 when i = j and exactly 0 for any other two positions
less than 128 apart, so a head can pick "the word at position i − shift" and nothing else
(see heads.Position).
"""

from __future__ import annotations

import numpy as np

from attention.models.translation.vocabulary import (
    CONCEPTS,
    ENGLISH,
    GERMAN,
    GRAMMAR,
    PARTS_OF_SPEECH,
    Word,
)

START = "<s>"
N_FREQUENCIES = 64  # tells apart positions less than 128 apart: MAX_WORDS + <s> fit
MARKERS = (ENGLISH, GERMAN, "start", "always")
MEANINGS = tuple(f"meaning: {c}" for c in CONCEPTS)
COSINES = tuple(f"cos {k}π/{N_FREQUENCIES}" for k in range(N_FREQUENCIES + 1))
SINES = tuple(f"sin {k}π/{N_FREQUENCIES}" for k in range(1, N_FREQUENCIES))
POSITION = (*COSINES, *SINES)
CONTEXT = tuple(f"context: {g}" for g in GRAMMAR)
FEATURES = (*MEANINGS, *PARTS_OF_SPEECH, *GRAMMAR, *MARKERS, *POSITION, *CONTEXT)
INDEX = {name: i for i, name in enumerate(FEATURES)}
D_MODEL = len(FEATURES)


def frequencies() -> np.ndarray:
    """The angular frequencies ω_k = πk/N_FREQUENCIES, k = 0 … N_FREQUENCIES."""
    return np.pi * np.arange(N_FREQUENCIES + 1) / N_FREQUENCIES


def positions(n: int) -> np.ndarray:
    """(n, len(POSITION)): cos ω_k i for every k, then sin ω_k i for 0 < k < N_FREQUENCIES,
    at i = 0 … n−1."""
    angles = np.outer(np.arange(n), frequencies())
    return np.hstack([np.cos(angles), np.sin(angles[:, 1:-1])])


def indicator(names: tuple[str, ...]) -> np.ndarray:
    """(D_MODEL,) with 1 at each named feature."""
    vector = np.zeros(D_MODEL)
    vector[[INDEX[name] for name in names]] = 1.0
    return vector


def embed(words: list[Word], start: bool = False) -> np.ndarray:
    """(n, D_MODEL) feature vectors; `start` puts the decoder's start token first."""
    rows = [indicator(("start", "always"))] if start else []
    for word in words:
        names = (
            *(f"meaning: {c}" for c in word.concepts),
            word.part_of_speech,
            *word.grammar,
            word.language,
            "always",
        )
        rows.append(indicator(names))
    x = np.array(rows)
    x[:, [INDEX[name] for name in POSITION]] = positions(len(rows))
    return x
