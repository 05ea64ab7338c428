"""The sentences and choices of "Attention maps", called directly on small hand-made
inputs: each must be true for them (numbers worked out here, which sentence is chosen,
edge cases at the thresholds, user text escaped)."""

from __future__ import annotations

import pytest

from attention.teaching.narration import attention_maps as narration


def test_the_trained_source_shows_self_attention_and_says_why():
    assert narration.kind_shown("cross", "trained") == ("self", narration.TRAINED_HAS_NO_CROSS)
    assert "trained model only knows its task's symbols" in narration.TRAINED_HAS_NO_CROSS
    for source in ("toy", "real"):
        assert narration.kind_shown("cross", source) == ("cross", None)
    assert narration.kind_shown("self", "trained") == ("self", None)


def test_cross_caption_names_the_weights_and_the_mask_only_when_causal():
    toy = narration.cross_weights_caption("toy", 7, 3, causal=False)
    assert "random (seed 7)" in toy and "MiniLM" not in toy and "causal" not in toy
    real = narration.cross_weights_caption("real", 7, 3, causal=True)
    assert "MiniLM layer 3's" in real and "seed" not in real
    assert real.endswith("The causal mask is off here: it only makes sense within one sequence.")


def test_a_translation_error_is_escaped_and_says_what_is_shown_instead():
    sentence = narration.translation_fallback("Unknown word *bold* <b>x</b>.")
    assert "\\*bold\\*" in sentence and "<b>" not in sentence and "&lt;b&gt;" in sentence
    assert sentence.endswith(f"Showing {narration.SOURCE_WEIGHTS} instead.")


@pytest.mark.parametrize("note", [narration.grid_pooled_note, narration.large_pooled_note])
def test_pooling_notes_appear_only_for_long_self_attention(note):
    assert note(64, True, 64) is None  # every token has its own row
    assert note(500, False, 64) is None  # cross-attention is never pooled
    text = note(130, True, 64)
    assert text.startswith("Your text has 130 tokens:")
    assert f"64 × 64 blocks of about {130 / 64:.1f} tokens" in text  # 2.0


def test_the_lines_switch_is_fixed_past_64_tokens():
    assert not narration.only_focus_forced(64) and narration.only_focus_forced(65)
    assert narration.only_focus_help(64) is None
    assert narration.only_focus_help(65) == "Over 64 tokens only the focus token's lines are drawn."


def test_the_switch_label_escapes_the_token():
    assert narration.only_focus_label("*cat*") == "Only the focus token (\\*cat\\*)"
