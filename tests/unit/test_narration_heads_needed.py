"""The page sentences of "Do we need all these heads?" added to its narration, called
directly on hand-made inputs: numbers, singular and plural, escaping, the unchanged case."""

from __future__ import annotations

from attention.teaching.narration import heads_needed as narration


def test_intro_counts_the_heads():
    assert narration.intro_sentence("MiniLM", 72).startswith("MiniLM has 72 heads. Michel")
    assert narration.intro_sentence("tiny", 1).startswith("tiny has 1 head. ")


def test_tokens_line_counts_and_escapes_the_pieces():
    line = narration.tokens_line(["[CLS]", "*hi*", "[SEP]"])
    assert line == "**3 tokens** of your sentence: \\[CLS\\] · \\*hi\\* · \\[SEP\\]"
    assert narration.tokens_line(["a"]).startswith("**1 token** of")


def test_accuracy_change_in_points_or_none_when_unchanged():
    assert narration.accuracy_change(0.75, 0.75) is None
    assert narration.accuracy_change(0.70, 0.75) == f"{(0.70 - 0.75) * 100:+.1f} points"
    assert narration.accuracy_change(0.8, 0.75) == "+5.0 points"


def test_importance_wait_and_pruning_caption_state_their_numbers():
    assert "task's 30 sentences once per head" in narration.importance_wait(30)
    assert "task's 1 sentence once per head" in narration.importance_wait(1)
    caption = narration.pruning_caption(36, 3, 6)
    assert "measured again every 36 heads" in caption
    assert "spans 3 random orders" in caption and "measured every 6 heads" in caption
    assert "spans 1 random order." in narration.pruning_caption(36, 1, 6)
