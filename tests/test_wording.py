"""A count of 1 reads in the singular, in the helper and on the pages that print counts
the user can set to 1 (heads, d_head, tokens)."""

from __future__ import annotations

import re

import pytest

from attention.teaching.wording import plural
from tests.apptest import open_page

PLURAL_AFTER_ONE = re.compile(
    r"(?<![\d.])\b1\**\s+(?:head |full-size |token )?"
    r"(?:heads|dimensions|tokens|numbers|outputs|vectors|cells)\b"
)


def test_plural():
    assert [f"{n} {plural(n, 'dimension')}" for n in (0, 1, 2)] == [
        "0 dimensions",
        "1 dimension",
        "2 dimensions",
    ]
    assert (
        plural(1, "child", "children") == "child" and plural(3, "child", "children") == "children"
    )


def test_the_pattern_catches_plural_after_one():
    assert PLURAL_AFTER_ONE.search("a space of **1** dimensions")
    assert PLURAL_AFTER_ONE.search("**1** head outputs of")
    assert not PLURAL_AFTER_ONE.search("a space of **1** dimension. 11 tokens, 0.1 heads")


@pytest.mark.parametrize(
    "path", ["pages/home.py", "pages/head_spaces.py", "pages/block.py", "pages/why_heads.py"]
)
@pytest.mark.parametrize(("d_model", "heads", "text"), [("2", "2", "one"), ("16", "1", "one two")])
def test_pages_say_one_in_the_singular(path, d_model, heads, text):
    at = open_page(path, d_model=d_model, heads=heads, text=text)
    assert not at.exception, at.exception
    shown = [e.value for kind in ("markdown", "caption") for e in getattr(at, kind)]
    shown += [str(t) for t in at.dataframe[0].value.index] if path.endswith("why_heads.py") else []
    bad = [s for s in shown if PLURAL_AFTER_ONE.search(s)]
    assert not bad, bad
