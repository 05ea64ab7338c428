"""Panel and figure titles broken into lines (grid.wrapped_title): as few lines as the
width needs, cut where the longest line is shortest, never before a "·"."""

from __future__ import annotations

import math

import pytest

from attention.figures.grid import wrapped_title

TITLES = [
    "If heads sliced the embedding (not what happens)",
    "W_Q as it is: every head reads every coordinate",
    "Before: the token vectors (variance kept 47%)",
    "head 12 · var 100% · ρ 2-D −0.05 · own +1.00",
]


def test_a_title_is_cut_where_the_longest_line_is_shortest():
    """Worked by hand: four lines of at most 12 characters are needed; "If heads sliced"
    is 15, so the first line is "If heads", and only this choice keeps every line ≤ 14
    (cutting nearest to equal shares left "the" alone on a line)."""
    title = "If heads sliced the embedding (not what happens)"
    assert wrapped_title(title, 12) == "If heads<br>sliced the<br>embedding (not<br>what happens)"


@pytest.mark.parametrize("chars", [10, 16, 24, 40])
@pytest.mark.parametrize("title", TITLES)
def test_lines_keep_every_word_and_never_start_with_a_dot(title, chars):
    lines = wrapped_title(title, chars).split("<br>")
    assert " ".join(lines) == title
    assert len(lines) == (1 if len(title) <= chars else math.ceil(len(title) / chars))
    assert not any(line.startswith("·") for line in lines)


def test_breaks_already_there_stay_and_each_line_is_cut_on_its_own():
    title = "head 1 · var 50%<br>ρ 2-D +0.72 · own +0.60"
    assert wrapped_title(title, 16).split("<br>") == [
        "head 1 · var 50%",
        "ρ 2-D +0.72 ·",
        "own +0.60",
    ]
