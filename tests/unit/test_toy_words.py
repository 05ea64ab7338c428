"""The toy source's words: a symbol comes with what a screen draws as part of it, so no
token is an invisible character with an empty label ("I ❤️ tea" once gave U+FE0F a token
of its own, shown as 13 % on “”)."""

from __future__ import annotations

import unicodedata

import pytest

from attention.models.toy import split_words, word_spans

INVISIBLE = {"Cf", "Mn", "Me", "Sk"}  # format, combining and modifier characters


@pytest.mark.parametrize(
    ("text", "words"),
    [
        ("I ❤️ tea", ["I", "❤️", "tea"]),  # a variation selector stays with its heart
        ("a 👩\u200d🔬 here", ["a", "👩\u200d🔬", "here"]),  # one joined emoji, one token
        ("wave 👋🏽!", ["wave", "👋🏽", "!"]),  # a skin tone stays with its hand
        ("zero\u200dwidth", ["zerowidth"]),  # a joiner inside a word is dropped, as before
        ("\u200d\ufe0f x", ["x"]),  # marks with nothing to mark: no token
    ],
)
def test_a_symbol_keeps_its_marks_and_no_token_is_invisible(text, words):
    assert split_words(text)[0] == words
    for word in split_words(text)[0]:
        assert any(unicodedata.category(c) not in INVISIBLE for c in word), repr(word)


def test_each_words_span_covers_it_in_the_text():
    text = "I ❤️ tea, 👩\u200d🔬!"
    nfc = unicodedata.normalize("NFC", text)
    words, _ = split_words(text)
    assert [nfc[start:end] for start, end in word_spans(text)] == words
