"""The shared sidebar and its scenario: what a cached computation is keyed on, the focus
following the same word when the tokens change under it, the sidebar a text-only page
shows, and a sentence with nothing to show."""

from __future__ import annotations

import dataclasses

import pytest

from attention.models.pretrained import load_pretrained
from attention.models.toy import split_words, word_spans
from tests.support.apptest import open_page
from view_state.scenario import DEFAULT_TEXT, Scenario, carry_focus

TEXT = "The cat sat on the mat because it was tired."


def test_a_computation_ignores_the_focus_and_what_its_source_does_not_read():
    toy = Scenario(text=TEXT, focus=3)
    assert toy.computation() == dataclasses.replace(toy, focus=1).computation()
    assert toy.computation() != dataclasses.replace(toy, heads=8).computation()
    assert toy.computation() == dataclasses.replace(toy, layer=5).computation()
    real = Scenario(text=TEXT, source="real", layer=2)
    assert real.computation() == dataclasses.replace(real, d_model=8, seed=4).computation()
    assert real.computation() != dataclasses.replace(real, layer=3).computation()
    trained = Scenario(source="trained", seed=2)
    assert trained.computation() == dataclasses.replace(trained, text="x y").computation()
    assert trained.computation() != dataclasses.replace(trained, seed=3).computation()
    # an empty sentence computes the default one; full-size heads = the same explicit d_head
    assert Scenario(text=" ").computation() == Scenario(text=DEFAULT_TEXT).computation()
    full = Scenario(full=True, d_model=16)
    assert full.computation() == Scenario(d_head=16, d_model=16).computation()


def test_the_focus_follows_the_word_from_words_to_word_pieces_and_back():
    words, _ = split_words(TEXT)
    spans = word_spans(TEXT)
    pieces = load_pretrained().tokenizer.encode(TEXT)
    for focus, word in enumerate(words):
        index = carry_focus(spans, focus, pieces.spans)
        assert pieces.tokens[index] == word.lower()
        assert carry_focus(pieces.spans, index, spans) == focus
    assert carry_focus(pieces.spans, 0, spans) == 0  # [CLS] has no characters: by position
    long_word = "antidisestablishmentarianism rules"
    pieces = load_pretrained().tokenizer.encode(long_word)
    assert carry_focus(word_spans(long_word), 0, pieces.spans) == 1  # its first piece


def test_switching_toy_to_real_keeps_the_focus_on_the_same_word():
    at = open_page("pages/head_spaces.py", focus="1")
    assert at.sidebar.selectbox(key="focus").value == 1  # "cat" among the words
    at.sidebar.radio(key="source").set_value("real").run()
    assert not at.exception
    picker = at.sidebar.selectbox(key="focus")
    assert picker.format_func(picker.value).endswith("cat")  # [CLS] shifts it to 2
    at.sidebar.radio(key="source").set_value("toy").run()
    assert at.sidebar.selectbox(key="focus").value == 1


def test_the_real_model_page_hides_the_knobs_it_ignores_and_says_why():
    at = open_page("pages/real_model.py")
    assert not at.exception
    assert at.sidebar.text_area(key="text").value == DEFAULT_TEXT
    assert not at.sidebar.slider  # no heads, temperature or layer sliders here
    assert not at.sidebar.radio
    assert any("exactly as trained" in c.value for c in at.sidebar.caption)
    picker = at.sidebar.selectbox(key="focus")
    assert picker.format_func(0).endswith("[CLS]")  # MiniLM's own word pieces


@pytest.mark.parametrize("path", ["pages/head_spaces.py", "pages/block.py"])
def test_a_sentence_with_nothing_visible_gets_a_message_not_a_traceback(path):
    at = open_page(path, text="\u200b\u200c")
    assert not at.exception
    assert at.error and "at least one word" in at.error[0].value
    assert at.sidebar.text_area(key="text")  # the sidebar stays usable
