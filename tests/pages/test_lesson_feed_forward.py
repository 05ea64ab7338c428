"""The Lesson's feed-forward step on MiniLM: what it measures (another token's input
changes, the focus token's feed-forward output does not move; the units that fire;
what the strongest units write through the vocabulary) against NumPy written out here
(GELU from math.erf, the two matrices by hand), and the page's question answered from
that measurement."""

from __future__ import annotations

import math
import re

import numpy as np
import pytest

from attention.analysis.feed_forward_look import look_at_feed_forward, pick_change, unit_words
from attention.models.pretrained import load_pretrained
from attention.teaching.lesson.content import lesson_text
from tests.support.apptest import chart, check_answer, open_page

PAGE = "pages/lesson.py"
STEPS = [step.id for step in lesson_text()]
SENTENCE = "The cat sat on the mat because it was tired."
LAYER = 3  # the step's default layer
CAT = 2  # "cat" in [CLS] the cat sat …


@pytest.fixture(scope="module")
def model():
    return load_pretrained()


def gelu(z: np.ndarray) -> np.ndarray:
    return 0.5 * z * (1 + np.vectorize(math.erf)(z / math.sqrt(2)))


def ffn(z: np.ndarray, block) -> np.ndarray:
    f = block.feed_forward
    w_1, b_1, w_2, b_2 = (np.asarray(a, np.float64) for a in (f.w_1, f.b_1, f.w_2, f.b_2))
    return gelu(z @ w_1 + b_1) @ w_2 + b_2


def test_the_measured_changes_the_firing_units_and_their_words(model):
    trace = model.run(SENTENCE)
    block, x = model.block(LAYER - 1), trace.hidden_states[LAYER - 1]
    weights = trace.attentions[LAYER - 1].mean(axis=0)[CAT]
    other, donor = pick_change(weights, x, CAT, skip=(0, len(trace.tokens) - 1))
    assert other not in (0, CAT, len(trace.tokens) - 1) and donor not in (other, CAT)
    look = look_at_feed_forward(block, x, CAT, other, donor)

    z = np.asarray(block(x).sublayers[-1].stream_in, np.float64)  # the network's input
    changed = z.copy()
    changed[other] = z[donor]
    moved = np.linalg.norm(ffn(changed, block) - ffn(z, block), axis=1)
    assert look.focus_moved == 0.0 and moved[CAT] < 1e-9  # token by token: not at all
    assert look.other_moved == pytest.approx(moved[other], rel=1e-4)
    assert look.other_moved > 1.0
    assert look.attention_moved > 0.1  # attention, given the same change, mixes it in

    pre = z[CAT] @ np.asarray(block.feed_forward.w_1, np.float64) + block.feed_forward.b_1
    assert look.firing == int((pre > 0).sum())
    np.testing.assert_allclose(look.hidden, gelu(pre), atol=1e-4)
    w_2 = np.asarray(block.feed_forward.w_2, np.float64)
    writes = gelu(pre) * np.linalg.norm(w_2, axis=1)
    assert list(look.units) == np.argsort(-writes)[: len(look.units)].tolist()

    words = unit_words(w_2, look.units, model.word_embeddings, model.tokenizer.token)
    scores = np.asarray(model.word_embeddings, np.float64) @ w_2[look.units[0]]
    plain = [
        model.tokenizer.token(int(i))
        for i in np.argsort(-scores)[:50]
        if not re.fullmatch(r"\[.*\]", model.tokenizer.token(int(i)))
    ]
    assert words[0] == plain[:3]


def test_pick_change_needs_two_tokens_besides_the_focus():
    with pytest.raises(ValueError, match="two tokens"):
        pick_change(np.array([0.5, 0.5, 0.0]), np.eye(3), 1, skip=(0, 2))


def test_the_page_asks_then_answers_from_the_measurement():
    at = open_page(PAGE, step=str(STEPS.index("feed_forward") + 1))
    assert not at.exception
    figure = chart(at, "lesson_view_feed_forward")
    fires = next(t for t in figure["data"] if str(t.get("name", "")).startswith("fires"))
    assert all(x > 0 for x in fires["x"])  # the units drawn as firing have positive inputs
    check_answer(at, "it does not move")
    assert not at.exception and at.success and not at.warning
    said = " ".join(m.value for m in at.markdown).replace("\\", "")
    assert "and “cat”'s by 0, while" in said
    assert f"{len(fires['x'])} of the 1,536 units" in said
