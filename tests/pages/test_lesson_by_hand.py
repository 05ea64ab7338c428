"""The Lesson's "by hand" step: the arithmetic of one query agrees with the engine and
with NumPy written out here, the step asks before it shows a score, and after the
reveal its table holds the numbers recomputed independently from the scenario's own
inputs and weights (MiniLM's word vectors, the seeded heads), not from the step's code."""

from __future__ import annotations

import re

import numpy as np
import pytest

from attention import MultiHeadAttention
from attention.analysis.by_hand import by_hand
from attention.teaching.lesson.content import lesson_text
from tests.support.apptest import chart, check_answer, open_page, toy_points

PAGE = "pages/lesson.py"
STEPS = [step.id for step in lesson_text()]
SENTENCE = "The cat sat on the mat because it was tired."
FOCUS = 1  # the URL table's default focus token ("cat")


def softmax(scores: np.ndarray) -> np.ndarray:
    e = np.exp(scores - scores.max())
    return e / e.sum()


def test_by_hand_is_the_engines_attention_for_one_query():
    x = np.random.default_rng(4).normal(size=(7, 24))
    mha = MultiHeadAttention(24, 3, seed=5, dtype=np.float64)
    trace = mha(x)
    for h in range(3):
        for i in range(7):
            hand = by_hand(trace.q[h, i], trace.k[h], trace.v[h])
            np.testing.assert_allclose(hand.weights, trace.weights[h, i], atol=1e-12)
            np.testing.assert_allclose(hand.output, trace.heads[h, i], atol=1e-12)
            q = x[i] @ mha.w_q[h] + mha.b_q[h]
            k = x @ mha.w_k[h] + mha.b_k[h]
            np.testing.assert_allclose(hand.scores, k @ q / np.sqrt(8), atol=1e-12)
            assert hand.exps.max() == 1.0  # the largest score's e^(score − max)


def test_by_hand_keeps_large_scores_finite_and_refuses_bad_shapes():
    hand = by_hand(np.array([400.0, 0.0]), np.array([[5.0, 0.0], [4.0, 0.0]]), np.eye(2))
    assert np.isfinite(hand.weights).all() and hand.winner == 0
    np.testing.assert_allclose(hand.weights[1], np.exp(-400 / np.sqrt(2)), rtol=1e-9)
    with pytest.raises(ValueError, match="d_head"):
        by_hand(np.ones(3), np.ones((2, 4)), np.ones((2, 4)))


def numbers(cells: list[str]) -> np.ndarray:
    """The first number in each table cell ("+1.23" or "(+0.10, …)" → 0.10)."""
    found = [re.search(r"[+−-]?\d+\.\d+", c) for c in cells]
    return np.array([float(m.group().replace("−", "-")) for m in found])


def test_the_step_asks_first_then_shows_the_arithmetic_recomputed_here():
    number = STEPS.index("by_hand") + 1
    at = open_page(PAGE, step=str(number))
    assert not at.exception
    head = at.select_slider(key="lesson_hand_head").value
    asking = chart(at, "lesson_view_by_hand")
    assert [t["type"] for t in asking["data"]] == ["heatmap", "heatmap"]  # no score yet
    check_answer(at)
    assert not at.exception
    (table,) = chart(at, "lesson_view_by_hand")["data"]
    assert table["type"] == "table"
    columns = table["cells"]["values"]

    points = toy_points(SENTENCE, 64)
    mha = MultiHeadAttention(64, 4, seed=0, dtype=np.float64)
    h = head - 1
    q = points.x[FOCUS] @ mha.w_q[h] + mha.b_q[h]
    k = points.x @ mha.w_k[h] + mha.b_k[h]
    v = points.x @ mha.w_v[h] + mha.b_v[h]
    dots = k @ q
    weights = softmax(dots / 4.0)  # √16
    n = len(points.tokens)
    assert len(columns[0]) == n + 1  # a row per key and the sums
    np.testing.assert_allclose(numbers(columns[1][:n]), dots, atol=0.006)
    np.testing.assert_allclose(numbers(columns[2][:n]), dots / 4.0, atol=0.006)
    np.testing.assert_allclose(numbers(columns[4][:n]), weights, atol=6e-4)
    np.testing.assert_allclose(numbers(columns[5][:n]), v[:, 0], atol=0.006)
    assert numbers(columns[5][n:])[0] == pytest.approx(weights @ v[:, 0], abs=0.006)  # ★
    winner = int(np.argmax(weights))
    fills = table["cells"]["fill"]["color"][0]
    assert [i for i, c in enumerate(fills) if c != fills[-1] and c != "white"] == [winner]
    marked = at.success[0].value if at.success else at.warning[0].value
    assert points.tokens[winner] in marked.replace("\\", "")
