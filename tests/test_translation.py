"""The hand-built translation example: each head puts its weight where the page says
it does, the decoder never looks ahead, and bad sentences get readable errors."""

from __future__ import annotations

import numpy as np
import pytest

from attention.translation import (
    CONTEXT,
    D_MODEL,
    ENGLISH,
    GERMAN,
    INDEX,
    MAX_WORDS,
    START,
    build_translation_model,
    head_index,
    look_up,
    split_words,
)

MODEL = build_translation_model()


def test_strongest_key_and_head_index():
    trace = MODEL.run("he is tired", "er ist müde")
    assert trace.strongest_key("decoder", "subject", query=2) == ("er", pytest.approx(1, abs=0.02))
    word, weight = trace.strongest_key("cross", "meaning")
    assert word == "tired" and weight > 0.99
    assert head_index("cross", "position") == 2
    with pytest.raises(ValueError, match="no head 'gender'"):
        head_index("decoder", "gender")


@pytest.mark.parametrize("pronoun, verb", [("du", "bist"), ("ihr", "seid"), ("Sie", "sind")])
def test_decoder_formality_head_looks_at_the_pronoun(pronoun, verb):
    trace = MODEL.run("you are tired", f"{pronoun} {verb} müde")
    assert trace.target_tokens == (START, pronoun, verb, "müde")
    weights = trace.decoder_weights[head_index("decoder", "formality")]
    for row in (1, 2, 3):  # the pronoun, the verb and the adjective
        assert weights[row, 1] > 0.99, (row, weights[row])
    # and the head's output there carries the pronoun's formality
    carried = trace.decoder.sublayers[0].detail.heads[head_index("decoder", "formality")]
    formal = pronoun == "Sie"
    assert carried[3, 0] == pytest.approx(1.0 if formal else 0.0, abs=0.01)  # "formal"
    assert carried[3, 1] == pytest.approx(0.0 if formal else 1.0, abs=0.01)  # "informal"


def test_formality_head_spreads_evenly_when_nothing_is_marked():
    trace = MODEL.run("the dog is tired", "der Hund ist müde")
    weights = trace.decoder_weights[head_index("decoder", "formality")]
    for row in range(weights.shape[0]):
        np.testing.assert_allclose(weights[row, : row + 1], 1 / (row + 1), atol=1e-9)


def test_the_source_does_not_settle_number_or_formality():
    """English "you" and "are" carry no number or formality: the heads that look for
    those markers in the source find nothing and spread evenly; "he is" settles it."""
    trace = MODEL.run("you are tired", "du bist müde")
    for weights in (
        trace.encoder_weights[head_index("encoder", "number & formality")],
        trace.cross_weights[head_index("cross", "number & formality")],
    ):
        np.testing.assert_allclose(weights, 1 / 3, atol=1e-9)
    settled = MODEL.run("he is tired", "er ist müde")
    weights = settled.cross_weights[head_index("cross", "number & formality")]
    np.testing.assert_allclose(weights[:, :2].sum(axis=1), 1.0, atol=1e-3)  # he, is


def test_cross_meaning_head_aligns_each_word_with_its_translation():
    trace = MODEL.run("the dog is not tired", "der Hund ist nicht müde")
    weights = trace.cross_weights[head_index("cross", "meaning")]
    assert weights.shape == (6, 5)  # target (with START) × source
    np.testing.assert_allclose(weights[0], 1 / 5, atol=1e-9)  # START means nothing
    for target in range(1, 6):
        assert weights[target].argmax() == target - 1
        assert weights[target, target - 1] > 0.99


def test_article_heads_find_the_noun():
    trace = MODEL.run("the cat is hungry", "die Katze ist hungrig")
    assert trace.encoder_weights[head_index("encoder", "article → noun")][0, 1] > 0.95
    assert trace.cross_weights[head_index("cross", "article → noun")][1, 1] > 0.95  # die → cat
    gender = trace.decoder.sublayers[1].detail.heads[head_index("cross", "article → noun")][1]
    assert gender[1] == pytest.approx(1.0, abs=0.05)  # "feminine", from the English noun


def test_subject_heads_link_verbs_to_their_subject():
    trace = MODEL.run("she is very hungry", "sie ist sehr hungrig")
    enc = trace.encoder_weights[head_index("encoder", "subject")]
    assert enc[1, 0] > 0.95 and enc[3, 0] > 0.9  # is → she, hungry → she
    dec = trace.decoder_weights[head_index("decoder", "subject")]
    assert dec[2, 1] > 0.95  # ist → sie


def test_previous_word_heads_look_one_back():
    trace = MODEL.run("you are not very tired", "du bist nicht sehr müde")
    for weights in (
        trace.encoder_weights[head_index("encoder", "previous word")],
        trace.decoder_weights[head_index("decoder", "previous word")],
    ):
        for row in range(1, weights.shape[0]):
            assert weights[row, row - 1] > 0.95


def test_decoder_is_causal_and_cross_attention_is_rectangular():
    trace = MODEL.run("you are very tired", "Sie sind sehr müde")
    assert trace.decoder_weights.shape == (4, 5, 5)
    assert not np.triu(trace.decoder_weights, k=1).any()
    assert trace.cross_weights.shape == (4, 5, 4)
    assert trace.encoder_weights.shape == (4, 4, 4)


def test_residual_keeps_each_words_own_features():
    """The heads only write into the context features; everything else passes through."""
    trace = MODEL.run("you are tired", "du bist müde")
    own = [i for i in range(D_MODEL) if i not in {INDEX[c] for c in CONTEXT}]
    np.testing.assert_array_equal(trace.encoder.output[:, own], trace.encoder.input[:, own])
    np.testing.assert_array_equal(trace.decoder.output[:, own], trace.decoder.input[:, own])
    assert trace.decoder.output[:, [INDEX[c] for c in CONTEXT]].any()


def test_word_lookup_rules():
    assert split_words("  Du bist müde! ") == ["Du", "bist", "müde"]
    assert [w.text for w in look_up("Du bist MÜDE.", GERMAN)] == ["du", "bist", "müde"]
    assert look_up("Sie", GERMAN)[0].grammar == ("formal", "2nd person")
    assert look_up("sie", GERMAN)[0].concepts == ("she", "they")
    assert [w.text for w in look_up("You are TIRED", ENGLISH)] == ["you", "are", "tired"]


@pytest.mark.parametrize(
    ("text", "language", "pieces"),
    [
        ("", ENGLISH, ["English sentence is empty"]),
        ("  ?! ", GERMAN, ["German sentence is empty"]),
        ("you are sleepy", ENGLISH, ["“sleepy”", "English vocabulary", "tired"]),
        ("du bist müde", ENGLISH, ["“du”", "“bist”", "“müde”", "German, the other side"]),
        ("you are tired", GERMAN, ["“you”", "English, the other side", "müde"]),
        (" ".join(["du"] * (MAX_WORDS + 1)), GERMAN, [f"{MAX_WORDS + 1} words", "at most"]),
    ],
)
def test_bad_sentences_get_a_readable_message(text, language, pieces):
    with pytest.raises(ValueError) as info:
        look_up(text, language)
    for piece in pieces:
        assert piece in str(info.value)


def test_longest_sentences_run():
    trace = MODEL.run(" ".join(["you"] * MAX_WORDS), " ".join(["du"] * MAX_WORDS))
    assert trace.cross_weights.shape == (4, MAX_WORDS + 1, MAX_WORDS)
    assert np.isfinite(trace.decoder.output).all()
