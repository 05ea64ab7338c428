"""The sentences and choices of "Why several heads?", called directly on small hand-made
numbers: each must be true for its inputs (counts and ratios worked out here, singular
and plural, which note or verdict applies, ties and edge cases)."""

from __future__ import annotations

import pytest

from attention.experiments.training.summary import LayoutFacts
from attention.teaching.narration import why_heads as narration
from attention.wording import percent


@pytest.mark.parametrize(
    ("heads", "tokens", "words"),
    [
        (1, 1, "d_model = 64, 1 head of d_head = 64, 1 token."),
        (4, 11, "d_model = 64, 4 heads of d_head = 16, 11 tokens."),
    ],
)
def test_scenario_caption_agrees_in_number(heads, tokens, words):
    assert narration.scenario_caption(64, heads, 64 // heads, tokens).endswith(words)


def test_same_vector_warning_shows_the_tokens_literally():
    warning = narration.same_vector_warning("*a*", "<b>")
    assert warning.startswith(r"'\*a\*' and '&lt;b&gt;' have the same vector")


@pytest.mark.parametrize(("steps", "words"), [(1, "(1 Adam step)"), (200, "(200 Adam steps)")])
def test_two_target_fit_sentence(steps, words):
    sentence = narration.two_target_fit_sentence(steps, (64, 32))
    assert words in sentence
    assert "one head with d_head = 64, and for two heads with d_head = 32 each" in sentence


def test_fetch_sentences_round_the_weights_and_take_the_smaller_fetch():
    sentence = narration.fetch_sentence([0.504, 0.488], [0.97, 0.996])
    assert "puts **50%** of its weight on the first target and **49%** on the second" in sentence
    # 0.996 is not all of the weight: neither sentence may round it up to 100 %
    assert "head 1 puts **97%** on the first, head 2 **>99%** on the second" in sentence
    assert "at least 97% of their weight" in narration.fetch_caption([0.97, 0.996])
    assert "at least 99% of their weight" in narration.fetch_caption([0.996, 0.9999])
    assert "at least 90% of their weight" in narration.fetch_caption([0.9, 0.9])  # a tie


def test_rank_marks_and_the_d_heads_drawn():
    assert narration.rank_marks(4, 8) == {"d_head = n": 8, "today's d_head = 4": 4}
    assert narration.shown_d_heads(4, 8) == [1, 2, 4]
    assert narration.shown_d_heads(1, 8) == [1, 2]  # today's is 1: drawn once
    assert narration.shown_d_heads(64, 8) == [1, 2, 8]  # beyond n: the largest fitted


def test_rank_limit_notes_apply_only_when_their_condition_holds():
    assert narration.rank_limit_notes(4, 8, 64, 0.001, "permutation") == []
    (off,) = narration.rank_limit_notes(16, 8, 64, 0.001, "soft")
    assert off == "today's d_head = 16 is larger than n = 8, so it is off the chart."
    (span,) = narration.rank_limit_notes(4, 8, 4, 0.001, "soft")
    assert "only span 4 dimensions, so no d_head above 4 can help" in span
    (one,) = narration.rank_limit_notes(1, 8, 1, 0.001, "soft")
    assert "only span 1 dimension," in one
    assert narration.rank_limit_notes(8, 8, 8, 0.001, "soft") == []  # n = d_head = d_model
    for kind in ("permutation", "previous"):
        (circle,) = narration.rank_limit_notes(4, 8, 64, 0.0, kind)
        assert "circle" in circle
    assert narration.rank_limit_notes(4, 8, 64, 0.0, "soft") == []
    assert narration.rank_limit_notes(4, 8, 64, 0.0, "drawn") == []
    assert len(narration.rank_limit_notes(16, 8, 4, 0.0, "previous")) == 3


MARKS = ("A:", "*B*")


def _facts(split_on: tuple[int, int], full_on: tuple[int, int], one_params: int = 1024):
    d, h = 16, 2  # parameters of W_Q, W_K, W_V, W_O: 4 d (h d_head)
    return {
        "one": LayoutFacts("(a) 1 head × 16", 0.5, (1, 0), None, one_params),
        "split": LayoutFacts("(b) 2 heads × 8", 0.987, split_on, 0.4567, 4 * d * d),
        "full": LayoutFacts("(c) 2 heads × 16", 0.9, full_on, 0.5, 4 * d * h * d),
    }


def test_projection_answer_when_full_size_heads_also_divide_the_lookups():
    answer = narration.projection_answer(_facts((1, 1), (1, 1)), MARKS)
    assert r"\(b\) 2 heads × 8: accuracy **98.7%**" in answer
    assert r"heads mostly on A\: / \*B\*: 1 / 1, diversity 0.46 bits" in answer
    assert "divided the two lookups between them too" in answer
    assert "1,024 attention parameters, the same as" in answer
    assert "full-size heads need 2,048 (×2.0)." in answer


def test_projection_answer_when_full_size_heads_do_not_divide_them():
    answer = narration.projection_answer(_facts((2, 0), (0, 2), one_params=1040), MARKS)
    assert "did not divide the two lookups between them" in answer and "too" not in answer
    assert "1,024 attention parameters, against" in answer and "(1,040)" in answer
    assert ": 2 / 0," in answer and ": 0 / 2," in answer


def test_a_single_head_has_no_diversity_to_state():
    facts = _facts((1, 1), (1, 1))
    facts["split"] = LayoutFacts("(b)", 0.5, (1, 0), None, 1024)
    assert "diversity n/a" in narration.projection_answer(facts, MARKS)


def test_task_texts_use_the_tasks_own_marks_literally():
    task = narration.task_description(MARKS, "?")
    assert r"one token marked **A\:** and one marked **\*B\***" in task
    assert r"from the query token **?**" in task
    assert r"split its weight between A\: and \*B\*" in narration.noise_caption(MARKS)


def test_button_labels_and_where_the_slice_numbers_come_from():
    assert narration.train_label(3) == "Train the four variants (seed 3)"
    assert narration.seeds_label([3, 4, 5, 6, 7]) == "Train seeds 3–7 (same settings)"
    assert "from §4's seed 3 (same" in narration.slice_cost_intro(3, None)
    assert "from §4's 5 seeds (same" in narration.slice_cost_intro(3, 5)


@pytest.mark.parametrize(
    ("heads", "d_model", "drawable"), [(4, 64, True), (2, 2, True), (3, 2, False)]
)
def test_slices_are_drawable_only_with_a_coordinate_per_head(heads, d_model, drawable):
    assert narration.slices_drawable(heads, d_model) is drawable


@pytest.mark.parametrize(
    ("share", "decimals", "shown"),
    [
        (0.0, 0, "0%"), (0.004, 0, "<1%"), (0.2349, 0, "23%"), (0.993, 0, "99%"),
        (0.996, 0, ">99%"), (0.9999, 0, ">99%"), (1.0, 0, "100%"),
        (0.0004, 1, "<0.1%"), (0.4971, 1, "49.7%"), (0.9994, 1, "99.9%"),
        (0.9996, 1, ">99.9%"), (1.0, 1, "100%"), (0.0, 1, "0%"),
    ],
)  # fmt: skip
def test_a_percent_never_rounds_a_part_into_all_or_nothing(share, decimals, shown):
    assert percent(share, decimals) == shown
