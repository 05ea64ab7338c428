"""A head's pattern in a word, on constructed maps whose pattern is known by design:
each positional habit, focused / mixed / broad by entropy, the causal mask and
cross-attention."""

from __future__ import annotations

import numpy as np
import pytest

from attention.analysis.head_metrics import describe_head, summarise_heads
from attention.core.engine import causal_mask

N = 16


def uniform() -> np.ndarray:
    return np.full((N, N), 1 / N)


def one_hot(keys: np.ndarray, n_k: int = N) -> np.ndarray:
    """Row i puts all its weight on key keys[i]."""
    weights = np.zeros((len(keys), n_k))
    weights[np.arange(len(keys)), keys] = 1.0
    return weights


def blend(share: float, pattern: np.ndarray, rest: np.ndarray) -> np.ndarray:
    return share * pattern + (1 - share) * rest


ROWS = np.arange(N)
PREVIOUS = one_hot(np.maximum(ROWS - 1, 0))  # row 0 has no previous token: itself
NEXT = one_hot(np.minimum(ROWS + 1, N - 1))
FIRST = one_hot(np.zeros(N, dtype=int))
SKIP_THREE = one_hot((ROWS + 3) % N)  # one key per row, at no named offset
THREE_KEYS = sum(one_hot((ROWS + s) % N) for s in (3, 4, 5)) / 3  # log2 3 / log2 16 = 0.40


@pytest.mark.parametrize(
    ("weights", "pattern"),
    [
        (np.eye(N), "self"),
        (blend(0.55, np.eye(N), uniform()), "self"),  # 0.55 + 0.45/16 of each row: over half
        (PREVIOUS, "previous token"),
        (blend(0.6, PREVIOUS, THREE_KEYS), "previous token"),
        (NEXT, "next token"),
        (FIRST, "first token"),
        (blend(0.7, FIRST, uniform()), "first token"),
        (SKIP_THREE, "focused"),
        (blend(0.9, SKIP_THREE, uniform()), "focused"),  # relative entropy 0.20
        (THREE_KEYS, "mixed"),
        (blend(0.45, np.eye(N), THREE_KEYS), "mixed"),  # self under half: spread decides
        (uniform(), "broad"),
        (blend(0.4, PREVIOUS, THREE_KEYS), "mixed"),  # relative entropy 0.48
        (blend(0.1, SKIP_THREE, uniform()), "broad"),  # relative entropy 0.98
    ],
)
def test_constructed_maps_get_their_pattern(weights, pattern):
    np.testing.assert_allclose(weights.sum(axis=1), 1.0)
    assert describe_head(weights) == pattern


def test_broad_is_measured_against_the_keys_a_row_may_use():
    """Causal rows spread evenly over the keys they may see: broad with the mask, but
    only 0.69 of the entropy of rows that could see all 16 keys without it."""
    allowed = causal_mask(N)
    weights = allowed / allowed.sum(axis=1, keepdims=True)
    assert describe_head(weights, allowed) == "broad"
    assert describe_head(weights) == "mixed"


def test_cross_attention_maps_have_no_diagonal_but_a_first_token():
    """On a rectangular map, key i is not query i's self: only "first token" counts."""
    diagonal = one_hot(np.arange(6), n_k=9)
    assert describe_head(diagonal, square=False) == "focused"
    assert describe_head(diagonal) == "self"
    first = one_hot(np.zeros(6, dtype=int), n_k=9)
    assert describe_head(first, square=False) == "first token"


def test_summary_names_each_head_of_a_stack_in_order():
    stack = np.stack([PREVIOUS, uniform(), np.eye(N), THREE_KEYS, FIRST, NEXT, SKIP_THREE])
    summary = summarise_heads(stack, focus=5)
    assert summary["pattern"] == [
        "previous token",
        "broad",
        "self",
        "mixed",
        "first token",
        "next token",
        "focused",
    ]
    assert summary["focus_top_key"] == [4, 0, 5, 8, 0, 6, 8]  # THREE_KEYS: first of equals
