"""The sentences of "Inside a real model", called directly on small hand-made inputs:
each must be true for them (numbers worked out here, singular and plural, which
sentence is chosen at the thresholds, user text escaped)."""

from __future__ import annotations

import math

import numpy as np

from attention.analysis.head_roles import ROLES
from attention.teaching.narration import real_model as narration


def test_model_sentence_states_the_sizes_and_escapes_the_name():
    sentence = narration.model_sentence("my_*model*", 6, 12, 384, 32)
    assert sentence.startswith("**my\\_\\*model\\*** is a trained BERT encoder: ")
    assert "encoder: 6 layers × 12 heads, " in sentence
    assert "d_model = 384, d_head = 32" in sentence
    assert "1 layer × 1 head," in narration.model_sentence("m", 1, 1, 8, 8)


def test_the_token_list_folds_past_the_limit_and_agrees_in_number():
    assert narration.tokens_label(1).startswith("**1 WordPiece token** ")
    assert narration.tokens_label(13).startswith("**13 WordPiece tokens** ")
    assert not narration.tokens_folded(64, 64) and narration.tokens_folded(65, 64)


def test_grid_note_says_pooling_only_past_the_blocks_and_names_the_role():
    plain = narration.grid_note(32, None, 32)
    assert "simplified" not in plain and "Frames" not in plain
    pooled = narration.grid_note(40, "[CLS]", 32)
    assert "Your text has 40 tokens, so each small map is simplified to 32 × 32 blocks" in pooled
    assert f"blocks of about {40 / 32:.1f} tokens" in pooled
    assert "each head's “[CLS]” score" in pooled
    phone = narration.grid_note(20, "[CLS]", 32, numbers=False)
    assert "numbers above" not in phone and "“[CLS]” score" in phone and "table" in phone


def test_role_scores_list_every_share_and_the_even_entropy():
    text = narration.role_scores({"previous token": 0.25, "[SEP]": 0.5}, 1.5, 8)
    lines = text.split("\n")
    assert lines[0] == "- previous token: **25%** of its attention"
    assert lines[1] == "- [SEP]: **50%** of its attention"
    assert lines[2] == (
        f"- entropy: **1.50 bits** (spread evenly over all 8 tokens it would be "
        f"{math.log2(8):.2f} bits)"
    )
    assert "over all 1 token it would be 0.00 bits" in narration.role_scores({}, 0.0, 1)


def test_head_spaces_link_and_titles_follow_the_numbers():
    assert narration.head_spaces_link(3, 12).startswith(
        "The **Head spaces** page can show layer 3's 12 trained heads:"
    )
    assert "layer 1's 1 trained head:" in narration.head_spaces_link(1, 1)
    assert narration.all_heads_title(6, 12) == "All 72 heads at once"


def test_paths_caption_names_tokens_only_up_to_the_limit():
    assert narration.paths_caption(40, 40).endswith("Tokens are named at their embedding point.")
    assert narration.paths_caption(41, 40).endswith("Hover for the token.")


def test_the_role_table_says_its_rows_may_add_up_to_more_than_all_and_counts_them():
    """Roles overlap (the previous token may be punctuation too): the sentence counts the
    heads whose shares sum past 100 %, from the shares themselves."""
    roles = {name: np.zeros((2, 3)) for name in ROLES}
    roles["previous token"][:] = 0.7
    roles["punctuation"][0, :2] = 0.6  # two heads: 130 %
    roles["punctuation"][1, 0] = 0.3  # exactly 100 %: not over
    sentence = narration.roles_overlap(roles)
    assert "more than 100 %" in sentence and sentence.endswith("Here 2 of 6 heads' rows do.")


def test_the_reading_notice_names_the_texts_own_examples_and_unknowns():
    assert narration.reading_notice([], 0) is None
    sentence = narration.reading_notice([("müde", ["mud", "##e"])], 1).replace("\\", "")
    assert sentence.startswith("MiniLM is an English, uncased model:")
    assert "“müde” is read as “mud ##e”" in sentence
    assert "1 token it has no word piece for is [UNK]" in sentence
    assert "2 tokens" in narration.reading_notice([], 2)
