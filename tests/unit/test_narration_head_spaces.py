"""The sentences of Head spaces and Start here, called directly: every number they state
is recomputed here from the engine's arrays or the inputs, and counts of 1 read singular."""

from __future__ import annotations

import math

import numpy as np
import pytest

from attention import MultiHeadAttention
from attention.geometry.head_spaces import AgreementRange
from attention.teaching.narration import head_spaces as narration


def _engine_cost(d_model: int, n_heads: int, d_head: int, n: int) -> tuple[int, int]:
    """Parameters and multiply-adds counted from a real layer's arrays and trace shapes."""
    mha = MultiHeadAttention(d_model, n_heads, d_head, seed=0)
    tr = mha(np.ones((n, d_model)))
    params = sum(getattr(mha, a).size for a in ("w_q", "w_k", "w_v", "b_q", "b_k", "b_v"))
    params += mha.w_o.size + mha.b_o.size
    macs = (tr.q.size + tr.k.size + tr.v.size) * d_model + tr.scores.size * d_head
    macs += tr.heads.size * n + tr.output.size * tr.concat.shape[-1]
    return params, macs


@pytest.mark.parametrize(
    ("d_model", "n_heads", "d_head", "n"),
    [(64, 4, 16, 9), (64, 4, 64, 9), (64, 3, 21, 5), (16, 1, 4, 1), (32, 8, 4, 2)],
)
def test_cost_sentence_states_the_engines_cost_and_one_big_heads(d_model, n_heads, d_head, n):
    text = narration.cost_sentence(d_model, n_heads, d_head, n)
    here, one = _engine_cost(d_model, n_heads, d_head, n), _engine_cost(d_model, 1, d_model, n)
    assert f"{here[0]:,} parameters and {here[1]:,} multiply-adds" in text
    assert f"would take {one[0]:,} and {one[1]:,}" in text
    assert f"(×{here[0] / one[0]:.2f} the parameters here)" in text
    assert f"for {n} {'token' if n == 1 else 'tokens'};" in text
    if n_heads == 1:
        assert text.startswith(f"Cost: this 1 head of {d_head} takes ")
        assert text.endswith("as this one does.")
    else:
        assert text.startswith(f"Cost: these {n_heads} heads of {d_head} take ")
        assert text.endswith(f"instead of {n_heads}.")


def test_one_head_of_d_model_says_what_a_split_would_cost():
    text = narration.cost_sentence(64, 1, 64, 7)
    params, macs = _engine_cost(64, 1, 64, 7)
    assert text.startswith(f"Cost: this one head of 64 takes {params:,} parameters")
    assert "would take" not in text and "these" not in text
    for h in (2, 4, 8, 16, 32, 64):  # the sentence's claim: h heads of 64/h cost the same
        assert _engine_cost(64, h, 64 // h, 7) == (params, macs)


def _rho(score, head, picture) -> AgreementRange:
    return AgreementRange(score, head, picture)


def test_nearness_sentence_prints_each_range_and_collapses_equal_ends():
    text = narration.nearness_sentence(_rho((1.0, 1.0), (0.41, 0.873), (-0.2, 0.5)), 16)
    assert "ρ(score, −distance) = 1.000." in text
    assert "own 16 dimensions alone, ρ = +0.41 to +0.87;" in text
    assert "keep ρ = -0.20 to +0.50 of that order" in text


def test_nearness_sentence_says_n_a_when_no_head_has_an_order():
    nan = (math.nan, math.nan)
    text = narration.nearness_sentence(_rho(nan, nan, nan), 1)
    assert text.count("n/a (every score equal)") == 3
    assert "own 1 dimension alone" in text and "nan" not in text.lower()


def test_intro_and_sizes_read_one_in_the_singular():
    rho = _rho((1.0, 1.0), (1.0, 1.0), (1.0, 1.0))
    intro = narration.intro_sentence(1, 2, 1, rho)
    assert "the same **1** token vector (width 2)" in intro
    assert "a space of **1** dimension." in intro
    sizes = narration.start_page_sizes(1, 2, 1, 1)
    assert sizes.startswith("1 token, each a vector of **2** numbers, going through **1** head")
    assert "of **1** dimension." in sizes
    assert "per head" in narration.start_page_sentence(3, rho)


def test_focus_token_is_shown_literally():
    title = narration.answers_title("*x*<b>")
    assert "<b>" not in title and "\\*x\\*" in title
    caption = narration.neighbours_caption("[a](b)", 64, 16)
    assert "](" not in caption and "all 64 dimensions" in caption and "its 16 dimensions" in caption


def test_start_page_plain_words_name_each_heads_strongest_key_without_notation():
    tokens = ["The", "cat", "<b>sat</b>"]
    weights = np.zeros((2, 3, 3))
    weights[0, 1] = [0.1, 0.2, 0.7]  # head 1: "cat" looks at the third token
    weights[1, 1] = [0.996, 0.004, 0.0]  # head 2: nearly all on "The"
    text = narration.start_page_plain(tokens, 1, weights)
    assert "“cat” looks most: in head 1, at “&lt;b&gt;sat&lt;/b&gt;” (70% of its attention)" in text
    assert "in head 2, at “The” (>99% of its attention)." in text
    assert not any(mark in text for mark in ("$", "ρ", "W_", "·"))
