"""A right-to-left token in a sentence or on a chart is isolated (U+2068 … U+2069) from the
numbers and quotes around it; left-to-right text is left as it is. Without it, a caption
like 'head 4: 30% on “مرحبا”, 25% on “,”' was reordered into '30% on “25 ,”مرحبا% on …'."""

from __future__ import annotations

import numpy as np

from attention.figures.base.text import safe_label
from attention.teaching.markdown import literal
from attention.teaching.narration.attention_maps import grid_summary
from attention.wording import FIRST_STRONG_ISOLATE as FSI
from attention.wording import POP_DIRECTIONAL_ISOLATE as PDI
from attention.wording import isolated

HELLO = "مرحبا"  # Arabic
SHALOM = "שלום"  # Hebrew


def test_right_to_left_words_are_isolated_and_left_to_right_ones_untouched():
    for word in (HELLO, SHALOM, f"{HELLO}2", f"a{SHALOM}"):
        assert isolated(word) == f"{FSI}{word}{PDI}"
    for word in ("cat", "25", ",", "müde", "❤️", ""):
        assert isolated(word) == word


def test_markdown_and_chart_labels_isolate_each_token():
    assert literal(HELLO) == f"{FSI}{HELLO}{PDI}"
    assert literal("a*b") == "a\\*b"  # escaping unchanged for left-to-right text
    assert safe_label(SHALOM) == f"{FSI}{SHALOM}{PDI}"


def test_a_summary_isolates_the_right_to_left_token_between_its_numbers():
    keys = [HELLO, ",", "tea"]
    rows = np.array([[0.30, 0.25, 0.45], [0.50, 0.30, 0.20]])
    sentence = grid_summary(keys, rows, "tea", ["head 1", "head 2"])
    assert f"“{FSI}{HELLO}{PDI}”" in sentence
    assert sentence.count(FSI) == sentence.count(PDI) == sentence.count(HELLO)
