"""Token points for the toy source: the sentence's words as vectors of any width.

Words come from real MiniLM embeddings when a vocabulary is given (see
attention.models.pretrained.vocabulary), else from a seeded random vector per distinct word,
so the same word always lands on the same point. Sinusoidal position vectors (as in
"Attention Is All You Need") can be added so that word order matters.
"""

from __future__ import annotations

import hashlib
import re
import unicodedata
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from attention.core.validation import check_positive_int

MAX_TOY_TOKENS = 64
POSITION_WEIGHT = 0.5
# A symbol is one character with what a screen draws as part of it: variation selectors
# (❤ + U+FE0F is one red heart), skin tones, a keycap, and further symbols joined by a
# zero-width joiner (👩 + ZWJ + 🔬 is one scientist). None of these starts a token: alone,
# it would be a token with an empty label.
_JOINER = "\u200d"
_MARKS = "\ufe00-\ufe0f\u20e3\U0001f3fb-\U0001f3ff"
_SYMBOL = rf"[^\w\s{_JOINER}{_MARKS}](?:[{_MARKS}]|{_JOINER}[^\w\s{_JOINER}{_MARKS}])*"
_WORD = re.compile(rf"\w+(?:['’]\w+)*|{_SYMBOL}")
WordVectors = Callable[[list[str], int], np.ndarray]


@dataclass(frozen=True)
class ToyInputs:
    """The words shown as tokens, their vectors (n, d_model), and a notice when the
    text had to be cut."""

    tokens: list[str]
    x: np.ndarray
    notice: str | None


def _is_symbol(character: str) -> bool:
    return not (character.isalnum() or character.isspace() or character == "_")


def _visible(text: str) -> tuple[str, list[int]]:
    """`text` in NFC without invisible format characters (zero-width spaces, direction
    marks; a zero-width joiner after a symbol stays, for the symbol it joins), and for
    each kept character its index in the NFC text."""
    text = unicodedata.normalize("NFC", text)
    kept = [
        i
        for i, c in enumerate(text)
        if unicodedata.category(c) != "Cf" or (c == _JOINER and i > 0 and _is_symbol(text[i - 1]))
    ]
    return "".join(text[i] for i in kept), kept


def split_words(text: str, max_tokens: int = MAX_TOY_TOKENS) -> tuple[list[str], int]:
    """Words and punctuation marks of `text` (Unicode-aware; invisible format characters
    such as zero-width spaces and direction marks are dropped), cut to `max_tokens`.
    Returns the words and how many there were before the cut."""
    words = _WORD.findall(_visible(text)[0])
    return words[:max_tokens], len(words)


def word_spans(text: str) -> list[tuple[int, int]]:
    """The (start, end) character span of each word of split_words in the NFC form of
    `text`, so a word can be matched with another tokenizer's tokens of the same text."""
    visible, index = _visible(text)
    return [(index[m.start()], index[m.end() - 1] + 1) for m in _WORD.finditer(visible)]


def hashed_word_vectors(words: list[str], d_model: int, seed: int = 0) -> np.ndarray:
    """A standard-normal vector per word, drawn from a generator seeded by the word
    itself (case-folded) and `seed`: repeatable across runs and processes."""
    rows = []
    for word in words:
        digest = hashlib.sha256(f"{seed}:{word.casefold()}".encode()).digest()
        word_seed = int.from_bytes(digest[:8], "little")
        rows.append(np.random.default_rng(word_seed).normal(size=d_model))
    return np.array(rows).reshape(len(words), d_model)


def sinusoidal_positions(n: int, d_model: int) -> np.ndarray:
    """Vaswani et al.'s position vectors: sin on even, cos on odd coordinates."""
    positions = np.arange(n)[:, None]
    rates = 1.0 / 10000 ** (2 * (np.arange(d_model) // 2) / d_model)
    angles = positions * rates[None, :]
    return np.where(np.arange(d_model) % 2 == 0, np.sin(angles), np.cos(angles))


def _unit_rms(vectors: np.ndarray) -> np.ndarray:
    """Scale each row to root-mean-square 1 so word and position parts are comparable."""
    rms = np.sqrt((vectors**2).mean(axis=1, keepdims=True))
    return vectors / np.where(rms > 0, rms, 1.0)


def toy_inputs(
    text: str,
    d_model: int,
    seed: int = 0,
    positions: bool = True,
    word_vectors: WordVectors | None = None,
    max_tokens: int = MAX_TOY_TOKENS,
) -> ToyInputs:
    """Split `text` into words and give each a d_model-wide vector: its word vector
    (unit RMS) plus, when `positions`, half a unit-RMS position vector."""
    d_model = check_positive_int("d_model", d_model)
    words, total = split_words(text, max_tokens)
    if not words:
        raise ValueError("text must contain at least one word or symbol; got only spaces.")
    # One vector per distinct word, so a repeated word is exactly the same point.
    distinct = list(dict.fromkeys(words))
    if word_vectors is None:
        vectors = hashed_word_vectors(distinct, d_model, seed)
    else:
        vectors = word_vectors(distinct, d_model)
    rows = [distinct.index(word) for word in words]
    x = _unit_rms(np.asarray(vectors, dtype=np.float64)[rows])
    if positions:
        x = x + POSITION_WEIGHT * _unit_rms(sinusoidal_positions(len(words), d_model))
    notice = None
    if total > len(words):
        notice = (
            f"The toy source shows at most {max_tokens} tokens: the text has {total}, "
            f"so only the first {max_tokens} are used."
        )
    return ToyInputs(words, x, notice)
