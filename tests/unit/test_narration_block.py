"""The sentences of "The block around attention", called directly on small hand-made
numbers: each must be true for its inputs (numbers worked out here, singular and plural,
which of the alternative sentences is chosen, edge cases)."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from attention.analysis.ffn_reads import BlockReads
from attention.geometry.rank_agreement import mean_row_agreement, row_ranks
from attention.models.translation import HEADS, build_translation_model, head_titles
from attention.models.translation.pronoun import PronounChoice
from attention.models.translation.vocabulary import Word
from attention.teaching.narration import block, translation


def test_block_equations_put_the_layer_norm_where_the_choice_says():
    post, pre = block.block_equations("post"), block.block_equations("pre")
    assert r"\mathrm{LN}\big(x + \mathrm{MultiHead}(x)\big)" in post
    assert r"x + \mathrm{MultiHead}\big(\mathrm{LN}(x)\big)" in pre
    assert "MultiHead}(x)" not in pre and r"\big(\mathrm{LN}(x)\big)" not in post
    assert r"\mathrm{RELU}(x W_1" in block.feed_forward_equation("relu")


@pytest.mark.parametrize(
    ("heads", "d_head", "words"),
    [
        (1, 1, "**1** head output of **1** number is laid"),
        (1, 16, "**1** head output of **16** numbers is laid"),
        (4, 16, "**4** head outputs of **16** numbers are laid"),
    ],
)
def test_concat_sentence_agrees_in_number(heads, d_head, words):
    sentence = block.concat_sentence(heads, d_head, heads * d_head)
    assert words in sentence
    assert f"update of **{heads * d_head}** numbers" in sentence


@pytest.mark.parametrize(
    ("medians", "says"),
    [
        ([0.1, 0.29], "Every median update is under 30% of the stream's length"),
        ([0.0], "Every median update is under 30%"),
        ([0.1, 0.3, 0.99], "sizeable rather than small nudges: 2 of 3."),
        ([0.5, 1.0, 2.5, 0.1], "rewrites the token rather than nudging it: 2 of 4."),
    ],
)
def test_size_sentence_counts_the_sizes(medians, says):
    sentence = block.size_sentence(np.array(medians))
    assert says in sentence
    if max(medians) >= 1:  # only then may it claim an update as long as the stream
        assert "at least as long as the stream" in sentence
    else:
        assert "at least as long" not in sentence


def test_size_sentence_reads_a_layers_by_sublayers_table():
    medians = np.array([[0.2, 0.4], [0.35, 0.1]])  # (layers, sublayers)
    assert "2 of 4." in block.size_sentence(medians)


def test_nudge_sentence_quotes_each_sublayers_median():
    sentence = block.nudge_sentence(["attention", "feed-forward"], [0.123, 0.456])
    assert "Median ‖update‖ / ‖stream‖: **attention** 0.12, **feed-forward** 0.46." in sentence
    assert "1 of 2." in sentence  # 0.456 is sizeable, 0.123 small


def _reads(shares: list[list[float]]) -> BlockReads:
    shares = np.array(shares)
    return BlockReads(strength=shares * 3.0, shares=shares)


def test_reads_sentence_and_panels_from_the_shares():
    toy = _reads([[0.5, 0.5], [0.9, 0.1], [0.7, 0.3]])  # 3 units, 2 heads
    real = _reads([[0.7, 0.1, 0.1, 0.1], [0.25, 0.25, 0.25, 0.25]])  # 2 units, 4 heads
    alone = block.reads_sentence(toy, None, 0)
    # toy: strongest shares 0.5, 0.9, 0.7 → median 70 %; even 50 %; none over 2 × 50 %
    assert "a median **70%** (an even read: 50%)" in alone
    assert "are 0%" in alone and "smallest share any unit takes from any head is 10.0%" in alone
    assert "MiniLM" not in alone
    both = block.reads_sentence(toy, real, 3)
    # real: strongest 0.7 and 0.25 → median 47.5 %; even 25 %; 0.7 > 0.5 for 1 of 2 units
    assert "in MiniLM's trained layer 3, **48%** (even: 25%)" in both
    assert "with **50%** of its 2 units leaning on one head" in both
    assert "smallest share any unit takes from any head is 10.0%" in both
    assert [title for title, _ in block.reads_panels(toy, None, 0)] == [
        "these random weights (2 heads)"
    ]
    assert [title for title, _ in block.reads_panels(toy, real, 3)] == [
        "these random weights (2 heads)",
        "MiniLM layer 3, trained (4 heads)",
    ]
    one_head = _reads([[1.0], [1.0]])  # 2 units, 1 head
    assert [title for title, _ in block.reads_panels(one_head, None, 0)] == [
        "these random weights (1 head)"
    ]


def test_trained_model_sentence_gives_each_sublayers_range():
    medians = np.array([[0.1, 0.4], [0.2, 0.35], [0.15, 0.5]])
    sentence = block.trained_model_sentence(7, medians)
    assert "(7 WordPiece tokens), 3 post-LN layers" in sentence
    assert "ranges from 0.10 to 0.20 of the stream" in sentence
    assert "the feed-forward's from 0.35 to 0.50" in sentence
    assert "3 of 6." in sentence
    assert "all 4 hidden states" in block.layer_path_sentence(4)


DEPTHS = np.arange(25)


def test_collapse_sentences_for_a_doubly_exponential_fall():
    lone = 0.4 ** (2.0**DEPTHS)  # log doubles per layer; ≤ 1e-15 first at depth 6
    kept = np.full(25, 0.8)
    distances = np.stack([lone, lone, kept, kept])
    sentence = block.collapse_sentences(distances, (False, False, True, True), "pre-LN")
    assert sentence.startswith("Without the residual (pre-LN) the distance reaches float64")
    assert "(below about 10⁻¹⁵: identical tokens)" in sentence
    assert "at depth 6 —" in sentence and "*doubly* exponentially" in sentence
    assert "grows about ×2.0 per layer" in sentence
    assert "from 0.80 at depth 0 the distance is 0.8 at depth 24" in sentence
    assert "drifts down" not in sentence


def test_collapse_sentences_for_a_plain_exponential_fall_and_a_drifting_residual():
    lone = 0.5 ** (DEPTHS + 1.0)  # never reaches float64's rounding in 24 layers
    kept = np.geomspace(0.9, 0.009, 25)  # falls a hundredfold
    distances = np.stack([kept, lone])  # the order of the runs is read from `residual`
    sentence = block.collapse_sentences(distances, (True, False), "no LN")
    assert "the distance falls to 3.0 × 10⁻⁸ by depth 24."  # 2.98e-8 in sentence
    assert "doubly" not in sentence and "rounding" not in sentence
    assert "about 10⁵ times the run without it"  # 3.0e5 in sentence
    assert "It still drifts down, 100 times over those layers." in sentence


def test_depth_metric_reads_the_chosen_depth():
    assert block.depth_metric(np.array([0.9, 0.01234, 0.0]), 1) == (
        "0.0123",
        "distance from rank 1 at depth 1",
    )


# §3: the translation example ---------------------------------------------------------
def test_head_lists_name_every_head_and_show_markup_literally():
    odd = dataclasses.replace(HEADS["encoder"][0], name="odd", does="finds *all* <b>")
    listed = translation.head_list(["1. odd", "2. plain"], [odd, HEADS["encoder"][1]])
    lines = listed.split("\n")
    assert lines[0] == r"- **1\. odd**: finds \*all\* &lt;b&gt;"
    assert lines[1].startswith(r"- **2\. plain**: ")
    built = translation.head_construction(head_titles("cross"), HEADS["cross"])
    assert len(built.split("\n")) == len(HEADS["cross"])
    with pytest.raises(ValueError):
        translation.head_list(["only one title"], HEADS["encoder"][:2])


def test_vocabulary_lines_list_the_words_and_the_words_of_address():
    def word(text: str, *grammar: str) -> Word:
        return Word(text, "English", (text,), "noun", grammar)

    words = {"sir": word("sir", "address"), "cat": word("cat"), "guys": word("guys", "address")}
    assert translation.vocabulary_lines("English", words) == (
        "**English:** sir, cat, guys",
        "*English words of address:* sir, guys",
    )


def test_you_remark_for_no_one_or_several_words_for_you():
    assert "has no 2nd-person word" in translation.you_remark([])
    alone = translation.you_remark([translation.YouReading(0, "you", "you", 0.974)])
    assert "“you” (word 1) finds no word of address and keeps **97%** of its weight on itself" in (
        alone
    )
    two = translation.you_remark(
        [
            translation.YouReading(0, "you", "guys", 0.5),
            translation.YouReading(3, "*you*", "*you*", 1.0),
        ]
    )
    first, second = two.split("; ")
    assert "“you” (word 1) puts **50%** of its weight on **guys**" in first
    assert r"“\*you\*” (word 4) finds no word of address and keeps **100%**" in second


def test_you_readings_come_from_the_encoders_map():
    example = build_translation_model().run("you guys are tired", "ihr seid müde")
    (reading,) = translation.you_readings(example)
    column = example.source_tokens.index("guys")
    weights = example.encoder_weights[3, 0]  # head 4, "who is you?"; query "you"
    assert reading == (0, "you", "guys", pytest.approx(weights[column]))
    assert weights[column] == weights.max()


def test_formality_remark_never_rounds_a_part_up_to_all_and_escapes_the_word():
    assert translation.formality_remark("<du>", 0.995) == (
        "Here the **formality** head at the last word puts **>99%** of its weight on "
        "**&lt;du&gt;**."
    )


@pytest.mark.parametrize(
    ("words", "expected"),
    [
        (("du",), "**du**"),
        (("du", "ihr"), "**du** or **ihr**"),
        (("du", "ihr", "Sie"), "**du**, **ihr** or **Sie**"),
    ],
)
def test_listing(words, expected):
    assert translation.listing(words, "or") == expected


def _choice(weight: float, number, formality, candidates) -> PronounChoice:
    delivered = {"singular": 0.0, "plural": 1.0, "formal": 0.25, "informal": 0.75}
    return PronounChoice(weight, delivered, number, formality, candidates)


def test_no_you_in_the_source_means_no_choice():
    text = translation.pronoun_decision(_choice(0.2, None, None, ()), ("du", "bist"))
    assert "finds no English 2nd-person word: 20% of its weight lands on one" in text
    assert "Your German" not in text


def test_a_settled_choice_names_the_pronoun_and_judges_the_german():
    choice = _choice(0.98, "plural", "informal", ("ihr",))
    asked = translation.pronoun_decision(choice, ("ihr", "seid", "müde"))
    assert "puts **98%** of its weight on the English 2nd-person words" in asked
    assert "brings back singular 0.00, plural 1.00, formal 0.25, informal 0.75." in asked
    assert "number: **plural**; formality: **informal**." in asked
    assert "asks for **ihr**. Your German uses **ihr**, as the English sentence asks." in asked
    wrong = translation.pronoun_decision(choice, ("du", "bist", "du"))
    assert wrong.endswith("Your German uses **du**, which the English sentence rules out.")
    none = translation.pronoun_decision(choice, ("der", "Hund"))
    assert none.endswith("Your German uses none of them.")


def test_an_unsettled_choice_lists_what_it_allows():
    choice = _choice(0.9, None, "informal", ("du", "ihr"))
    text = translation.pronoun_decision(choice, ("du", "bist"))
    assert "number: not settled; formality: **informal**" in text
    assert "does not settle it: it allows **du** and **ihr**." in text
    outside = "Your German's **du** is one of them: that choice came from outside the English"
    assert text.endswith(outside + " sentence.")
    both = translation.german_remark(choice, ("du", "ihr", "du"))
    assert both.startswith("Your German's **du** and **ihr** are among them")
    ruled = translation.german_remark(choice, ("Sie", "du"))
    assert ruled == "Your German uses **Sie**, which the English sentence rules out."


def test_the_cross_picture_caption_names_the_sign_its_rho_takes_when_nearer_means_more():
    """Keys on a line, queries at 0: nearer keys have higher scores exactly when the score
    falls with distance; the title's ρ(score, −distance) is then +1, as the caption says."""
    q = np.zeros((3, 2))
    k = np.column_stack([np.arange(1.0, 6.0), np.zeros(5)])
    scores = -np.linalg.norm(k, axis=1)[None, :].repeat(3, axis=0)
    rho = mean_row_agreement(row_ranks(scores), q, k)
    caption = translation.cross_picture_caption()
    assert rho == pytest.approx(1.0)
    assert "ρ(score, −distance)" in caption
    assert f"({rho:+.0f}: nearer always means more attention)" in caption
