"""Panel and figure titles broken into lines (grid.wrapped_title): no more lines than the
width needs, the longest as short as can be, never a line starting with "·"."""

from __future__ import annotations

import math
import random
from itertools import combinations

import pytest

from attention.figures.base.grid import wrapped_title

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
    assert len(lines) <= max(1, math.ceil(len(title) / chars))
    assert not any(line.startswith("·") for line in lines)


def _shortest_longest_line(title: str, lines: int) -> int:
    """The reference: every way to cut `title` at spaces into at most `lines` lines."""
    spaces = [i for i, c in enumerate(title) if c == " "]
    best = len(title)
    for k in range(min(lines - 1, len(spaces)) + 1):
        for cuts in combinations(spaces, k):
            ends = [*cuts, len(title)]
            starts = [0, *(c + 1 for c in cuts)]
            best = min(best, max(e - s for s, e in zip(starts, ends, strict=True)))
    return best


@pytest.mark.parametrize("seed", range(30))
def test_the_longest_line_is_as_short_as_any_cut_into_as_many_lines_allows(seed):
    rng = random.Random(seed)
    words = ["x" * rng.randint(1, 9) for _ in range(rng.randint(2, 9))]
    title, chars = " ".join(words), rng.randint(6, 20)
    lines = wrapped_title(title, chars).split("<br>")
    if len(title) > chars:
        need = math.ceil(len(title) / chars)
        assert len(lines) <= need
        assert max(map(len, lines)) == _shortest_longest_line(title, need)


def test_a_long_title_with_many_words_is_wrapped_too():
    """Trying every cut grows combinatorially (a 200-character title of 40 words at 12
    characters a line had ~10¹¹ choices); the width search does not."""
    title = " ".join(["word"] * 80)
    lines = wrapped_title(title, 12).split("<br>")
    assert " ".join(lines) == title and max(map(len, lines)) <= 14


def test_breaks_already_there_stay_and_each_line_is_cut_on_its_own():
    title = "head 1 · var 50%<br>ρ 2-D +0.72 · own +0.60"
    assert wrapped_title(title, 16).split("<br>") == [
        "head 1 · var 50%",
        "ρ 2-D +0.72 ·",
        "own +0.60",
    ]
