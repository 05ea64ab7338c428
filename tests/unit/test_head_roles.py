"""Head role scores against hand-built heads and a plain-loop reference."""

from __future__ import annotations

import math

import numpy as np
import pytest

from attention.analysis.head_roles import ENTROPY, ROLES, is_punctuation, role_scores

TOKENS = ["[CLS]", "the", "cat", ",", "sat", ".", "[SEP]"]
N = len(TOKENS)


def one_hot_rows(targets: list[int]) -> np.ndarray:
    weights = np.zeros((len(targets), len(targets)))
    weights[np.arange(len(targets)), targets] = 1.0
    return weights


def test_previous_token_head():
    weights = one_hot_rows([0, *range(N - 1)])  # row 0 has no previous: looks at itself
    scores = role_scores(weights, TOKENS)
    assert scores["previous token"] == pytest.approx(1.0)
    assert scores["next token"] == pytest.approx(0.0)
    assert scores["itself"] == pytest.approx(1 / N)
    assert scores["[CLS]"] == pytest.approx(2 / N)  # rows 0 and 1 look at [CLS]
    assert scores[ENTROPY] == pytest.approx(0.0)


def test_head_parked_on_sep():
    scores = role_scores(one_hot_rows([N - 1] * N), TOKENS)
    assert scores["[SEP]"] == pytest.approx(1.0)
    assert scores["punctuation"] == pytest.approx(0.0)
    assert scores["itself"] == pytest.approx(1 / N)


def test_uniform_head():
    scores = role_scores(np.full((N, N), 1 / N), TOKENS)
    assert scores[ENTROPY] == pytest.approx(math.log2(N))
    assert scores["punctuation"] == pytest.approx(2 / N)  # "," and "."
    assert scores["[CLS]"] == pytest.approx(1 / N)


def reference_scores(weights: np.ndarray, tokens: list[str]) -> dict[str, float]:
    """The same scores for one head, with loops over rows and keys."""
    n = len(tokens)
    punct = [t in {",", "."} for t in tokens]
    sums = dict.fromkeys([*ROLES, ENTROPY], 0.0)
    for i in range(n):
        row = weights[i]
        sums["[CLS]"] += sum(row[j] for j in range(n) if tokens[j] == "[CLS]") / n
        sums["[SEP]"] += sum(row[j] for j in range(n) if tokens[j] == "[SEP]") / n
        sums["punctuation"] += sum(row[j] for j in range(n) if punct[j]) / n
        sums["itself"] += row[i] / n
        sums["previous token"] += row[i - 1] / (n - 1) if i > 0 else 0.0
        sums["next token"] += row[i + 1] / (n - 1) if i < n - 1 else 0.0
        sums[ENTROPY] -= sum(p * math.log2(p) for p in row if p > 0) / n
    return sums


def test_scores_match_a_loop_reference_for_a_stack_of_heads():
    rng = np.random.default_rng(3)
    logits = rng.normal(size=(2, 3, N, N)) * 2
    weights = np.exp(logits) / np.exp(logits).sum(-1, keepdims=True)
    scores = role_scores(weights, TOKENS)
    for layer in range(2):
        for head in range(3):
            expected = reference_scores(weights[layer, head], TOKENS)
            for name, value in expected.items():
                assert scores[name][layer, head] == pytest.approx(value, abs=1e-12), name


@pytest.mark.parametrize(
    ("token", "expected"),
    [(".", True), (",", True), ("—", True), ("“", True), ("'", True), ("$", False),
     ("a", False), ("[SEP]", False), ("##s", False), ("", False)],
)  # fmt: skip
def test_punctuation(token, expected):
    assert is_punctuation(token) is expected


def test_shape_mismatch_is_refused():
    with pytest.raises(ValueError, match="tokens"):
        role_scores(np.full((3, 3), 1 / 3), ["a", "b"])
