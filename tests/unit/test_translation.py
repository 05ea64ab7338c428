"""The hand-built translation example: the scores are exactly the sum of each head's
terms (checked against a reference written from the terms' definitions, not from the
matrices), every head does to every word what its record says, du / ihr / Sie is read off
the maps, and bad sentences get readable errors."""

from __future__ import annotations

import numpy as np
import pytest

from attention.models.translation import (
    CONTEXT,
    D_MODEL,
    ENGLISH,
    EXAMPLES,
    GERMAN,
    HEADS,
    INDEX,
    MAX_WORDS,
    START,
    VOCABULARY,
    build_translation_model,
    choose_pronoun,
    head_index,
    look_up,
    split_words,
)
from attention.models.translation.features import POSITION, positions
from attention.models.translation.heads import Link, Position, SameMeaning
from attention.models.translation.vocabulary import GRAMMAR
from attention.teaching.sentences import DEFAULT_SECOND_TEXT, DEFAULT_TEXT

MODEL = build_translation_model()
DEFAULT_PAIR = (DEFAULT_TEXT, DEFAULT_SECOND_TEXT)


def _random_pairs(count: int, seed: int = 0) -> list[tuple[str, str]]:
    """Sentences of random vocabulary words (nonsense, but every word known), short and long."""
    rng = np.random.default_rng(seed)
    english, german = list(VOCABULARY[ENGLISH]), list(VOCABULARY[GERMAN])
    lengths = [*rng.integers(1, 13, size=count), MAX_WORDS]
    return [
        (" ".join(rng.choice(english, n)), " ".join(rng.choice(german, m)))
        for n, m in zip(lengths, rng.permutation(lengths), strict=True)
    ]


PAIRS = [(e.english, e.german) for e in EXAMPLES] + [DEFAULT_PAIR] + _random_pairs(24)
TRACES = [MODEL.run(*pair) for pair in PAIRS]


# -- the words' features, as the records' descriptions talk about them -----------------


def _features(token: str, language: str) -> tuple[set[str], set[str]]:
    """(marks, meanings) of a token: part of speech, grammar, language, "always"; <s> has
    only "start" and "always"."""
    if token == START:
        return {"start", "always"}, set()
    word = VOCABULARY[language][token]
    return {word.part_of_speech, *word.grammar, language, "always"}, set(word.concepts)


def _sides(kind: str, trace) -> tuple[list, list]:
    source = [_features(t, ENGLISH) for t in trace.source_tokens]
    target = [_features(t, GERMAN) for t in trace.target_tokens]
    return {"encoder": (source, source), "decoder": (target, target), "cross": (target, source)}[
        kind
    ]


def _reference_scores(kind: str, head, trace) -> np.ndarray:
    """Each term by its definition: a link adds its strength when both words have one of
    its features, same-meaning adds it per shared meaning, a position term adds it at the
    key `shift` places before the query."""
    queries, keys = _sides(kind, trace)
    scores = np.zeros((len(queries), len(keys)))
    for i, (q_marks, q_meanings) in enumerate(queries):
        for j, (k_marks, k_meanings) in enumerate(keys):
            for term in head.terms:
                if isinstance(term, Link):
                    hit = bool(q_marks & set(term.query)) and bool(k_marks & set(term.key))
                    scores[i, j] += term.strength * hit
                elif isinstance(term, SameMeaning):
                    scores[i, j] += term.strength * len(q_meanings & k_meanings)
                elif isinstance(term, Position):
                    scores[i, j] += term.strength * (j == i - term.shift)
    return scores


def _weights(trace, kind: str) -> np.ndarray:
    return {
        "encoder": trace.encoder_weights,
        "decoder": trace.decoder_weights,
        "cross": trace.cross_weights,
    }[kind]


@pytest.mark.parametrize("kind", ["encoder", "decoder", "cross"])
def test_scores_are_the_sum_of_each_heads_terms(kind):
    for trace in TRACES:
        detail = {
            "encoder": trace.encoder.sublayers[0].detail,
            "decoder": trace.decoder.sublayers[0].detail,
            "cross": trace.cross,
        }[kind]
        for h, head in enumerate(HEADS[kind]):
            expected = _reference_scores(kind, head, trace)
            if kind == "decoder":
                blocked = np.triu(np.ones_like(expected, dtype=bool), k=1)
                np.testing.assert_allclose(
                    detail.scores[h][~blocked], expected[~blocked], atol=1e-9
                )
                e = np.where(blocked, -np.inf, expected)
            else:
                np.testing.assert_allclose(detail.scores[h], expected, atol=1e-9)
                e = expected
            softmax = np.exp(e - e.max(axis=1, keepdims=True))
            softmax /= softmax.sum(axis=1, keepdims=True)
            np.testing.assert_allclose(_weights(trace, kind)[h], softmax, atol=1e-12)


def test_position_features_pick_exactly_one_position():
    """Σ_k w_k cos(ω_k (i − j)) over the position features: 64 at i = j, 0 elsewhere."""
    p = positions(130)
    half = np.ones(p.shape[1])
    half[[0, 64]] = 0.5  # cos 0·i and cos π·i
    kernel = (p * half) @ p.T
    distance = np.abs(np.subtract.outer(np.arange(130), np.arange(130)))
    np.testing.assert_allclose(kernel[distance == 0], 64, atol=1e-9)
    np.testing.assert_allclose(kernel[(distance > 0) & (distance < 128)], 0, atol=1e-9)
    assert len(POSITION) == p.shape[1] == 128


# -- each head does to every word what its record says ---------------------------------


def _looks_at(row: np.ndarray, targets: list[int], query: str) -> None:
    """All of the row's weight on `targets`, shared evenly."""
    assert targets, query
    share = row[targets]
    assert share.sum() > 0.99, (query, targets, row.round(3))
    np.testing.assert_allclose(share, share.mean(), atol=1e-6, err_msg=query)


def _spreads(row: np.ndarray, keys: int, query: str) -> None:
    np.testing.assert_allclose(row[:keys], 1 / keys, atol=1e-9, err_msg=query)


def _is(features, *names) -> bool:
    return bool(features[0] & set(names))


def _shares_meaning(a, b) -> bool:
    return bool(a[1] & b[1])


def test_encoder_heads_do_what_their_records_say():
    for trace in TRACES:
        words, _ = _sides("encoder", trace)
        w = trace.encoder_weights
        nouns = [j for j, k in enumerate(words) if _is(k, "pronoun", "noun")]
        articles_find = [j for j, k in enumerate(words) if _is(k, "noun")]
        address = [j for j, k in enumerate(words) if _is(k, "address")]
        for i, q in enumerate(words):
            label = f"{trace.source_tokens} word {i}"
            verb_like = _is(q, "verb", "adjective")
            _looks_at(w[0, i], nouns if verb_like and nouns else [i], label)
            article = _is(q, "article")
            _looks_at(w[1, i], articles_find if article and articles_find else [i], label)
            _looks_at(w[2, i], [max(i - 1, 0)], label)
            you = _is(q, "2nd person")
            _looks_at(w[3, i], address if you and address else [i], label)


def test_decoder_heads_do_what_their_records_say():
    for trace in TRACES:
        words, _ = _sides("decoder", trace)
        w = trace.decoder_weights
        for i, q in enumerate(words):
            label = f"{trace.target_tokens} word {i}"
            before = words[: i + 1]
            nouns = [j for j, k in enumerate(before) if _is(k, "pronoun", "noun")]
            _looks_at(w[0, i], nouns if _is(q, "verb") and nouns else [i], label)
            for h, marks in ((1, ("formal", "informal")), (3, ("singular", "plural"))):
                marked = [j for j, k in enumerate(before) if _is(k, *marks)]
                if marked:
                    _looks_at(w[h, i], marked, label)
                else:
                    _spreads(w[h, i], i + 1, label)
            _looks_at(w[2, i], [max(i - 1, 0)], label)
            assert not w[:, i, i + 1 :].any(), label  # never a word not yet written


def test_cross_heads_do_what_their_records_say():
    for trace in TRACES:
        queries, keys = _sides("cross", trace)
        w = trace.cross_weights
        n = len(keys)
        nouns = [j for j, k in enumerate(keys) if _is(k, "noun")]
        yous = [j for j, k in enumerate(keys) if _is(k, "2nd person")]
        for i, q in enumerate(queries):
            label = f"{trace.target_tokens} word {i}"
            same = [j for j, k in enumerate(keys) if _shares_meaning(q, k)]
            _looks_at(w[0, i], same, label) if same else _spreads(w[0, i], n, label)
            found = nouns if _is(q, "article") and nouns else same
            _looks_at(w[1, i], found, label) if found else _spreads(w[1, i], n, label)
            if 1 <= i <= n:
                _looks_at(w[2, i], [i - 1], label)
            else:  # <s>, or past the end of the English sentence
                _spreads(w[2, i], n, label)
            _looks_at(w[3, i], yous, label) if yous else _spreads(w[3, i], n, label)


def test_katze_looks_at_cat():
    trace = MODEL.run(*DEFAULT_PAIR)
    katze = trace.target_tokens.index("Katze")
    for name in ("meaning", "article → noun"):
        assert trace.strongest_key("cross", name, query=katze)[0] == "cat"


def test_head_records_are_complete():
    for kind, heads in HEADS.items():
        names = [h.name for h in heads]
        assert len(set(names)) == len(names) == 4, kind
        for head in heads:
            assert head.does and head.terms, head.name
            assert set(head.carries) <= set(GRAMMAR), head.name
            for term in head.terms:
                assert f"{term.strength:+g}" in head.built
    assert head_index("cross", "position") == 2
    with pytest.raises(ValueError, match="no head 'gender'"):
        head_index("decoder", "gender")


def test_values_carry_what_the_records_say():
    """A head's output at each word is the weighted sum of the carried features of the
    keys (their context features when the head reads context)."""
    for trace in TRACES[:8]:
        blocks = {
            "encoder": (trace.encoder, 0),
            "decoder": (trace.decoder, 0),
            "cross": (trace.decoder, 1),
        }
        for kind, (block, sublayer) in blocks.items():
            keys = trace.encoder.output if kind == "cross" else block.input
            detail = block.sublayers[sublayer].detail
            for h, head in enumerate(HEADS[kind]):
                columns = [INDEX[head.value_source(f)] for f in head.carries]
                expected = detail.weights[h] @ keys[:, columns]
                np.testing.assert_allclose(detail.heads[h][:, : len(columns)], expected, atol=1e-9)
                assert not detail.heads[h][:, len(columns) :].any()


# -- du / ihr / Sie from the maps -------------------------------------------------------


def _german_you(sentence: str) -> set[str]:
    return {w.text for w in look_up(sentence, GERMAN) if "you" in w.concepts}


def test_each_cue_example_produces_its_own_translation():
    """Every example whose German has one "you" pronoun and whose English settles it: the
    choice read off its maps is the pronoun a translator wrote."""
    chosen = {}
    for example in EXAMPLES:
        choice = choose_pronoun(MODEL.run(example.english, example.german))
        if choice.pronoun:
            assert {choice.pronoun} == _german_you(example.german), example
            chosen[choice.pronoun] = example.english
    assert set(chosen) == {"du", "ihr", "Sie"}


def test_without_a_cue_the_choice_is_ambiguous():
    choice = choose_pronoun(MODEL.run("you are tired", "du bist müde"))
    assert choice.has_you and choice.pronoun is None
    assert choice.candidates == ("du", "ihr", "Sie")
    assert choice.number is None and choice.formality is None
    two = choose_pronoun(MODEL.run("you two are tired", "ihr zwei seid müde"))
    assert (two.number, two.formality, two.candidates) == ("plural", None, ("ihr", "Sie"))
    none = choose_pronoun(MODEL.run("the dog is tired", "der Hund ist müde"))
    assert not none.has_you and none.candidates == () and none.pronoun is None


@pytest.mark.parametrize(
    ("english", "pronoun"),
    [
        ("sir , you are tired", "Sie"),
        ("you are very tired , madam", "Sie"),
        ("all of you are tired , my friends", "ihr"),
        ("you are not happy , my friend", "du"),
    ],
)
def test_the_choice_comes_from_the_source_alone(english, pronoun):
    """The same English sentence with any German gives the same choice: it is read at
    <s>, before any German word."""
    for german in ("du bist müde", "Sie sind müde", "der Hund"):
        assert choose_pronoun(MODEL.run(english, german)).pronoun == pronoun


def test_the_choice_is_read_off_the_cross_map():
    """What the "you" head delivers at <s> is its row of weights times the encoder's
    context at each English word; that context at "you" came from the encoder's
    “who is “you”?” head, which looked at the word of address."""
    trace = MODEL.run("you guys are tired", "ihr seid müde")
    choice = choose_pronoun(trace)
    row = trace.cross_weights[head_index("cross", "“you”: number and formality"), 0]
    assert row[0] == pytest.approx(1.0, abs=1e-6) == choice.weight_on_you
    for feature, value in choice.delivered.items():
        expected = row @ trace.encoder.output[:, INDEX[f"context: {feature}"]]
        assert value == pytest.approx(expected, abs=1e-12)
    assert trace.strongest_key("encoder", "who is “you”?", query=0)[0] == "guys"
    assert choice.delivered["plural"] == pytest.approx(1, abs=1e-3)
    assert choice.delivered["informal"] == pytest.approx(1, abs=1e-3)


# -- the blocks and the words -----------------------------------------------------------


def test_residual_keeps_each_words_own_features():
    """The heads only write into the context features; everything else passes through."""
    trace = MODEL.run("you are tired , sir", "Sie sind müde")
    own = [i for i in range(D_MODEL) if i not in {INDEX[c] for c in CONTEXT}]
    np.testing.assert_array_equal(trace.encoder.output[:, own], trace.encoder.input[:, own])
    np.testing.assert_array_equal(trace.decoder.output[:, own], trace.decoder.input[:, own])
    assert trace.decoder.output[:, [INDEX[c] for c in CONTEXT]].any()


def test_decoder_is_causal_and_cross_attention_is_rectangular():
    trace = MODEL.run("you are very tired", "Sie sind sehr müde")
    assert trace.decoder_weights.shape == (4, 5, 5)
    assert not np.triu(trace.decoder_weights, k=1).any()
    assert trace.cross_weights.shape == (4, 5, 4)
    assert trace.encoder_weights.shape == (4, 4, 4)


def test_word_lookup_rules():
    assert split_words("  Du bist müde! ") == ["Du", "bist", "müde"]
    assert [w.text for w in look_up("Du bist MÜDE.", GERMAN)] == ["du", "bist", "müde"]
    assert look_up("Sie", GERMAN)[0].grammar == ("formal", "2nd person")
    assert look_up("sie", GERMAN)[0].concepts == ("she", "they", "it")
    assert [w.text for w in look_up("You are TIRED", ENGLISH)] == ["you", "are", "tired"]
    sir = look_up("Sir", ENGLISH)[0]
    assert (sir.part_of_speech, sir.grammar) == (
        "vocative",
        ("singular", "formal", "masculine", "address"),
    )


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
