"""A count of 1 reads in the singular, in the helper and on the pages that print counts
the user can set to 1 (heads, d_head, tokens)."""

from __future__ import annotations

import re

import pytest

from attention.figures.base.text import unique_labels
from attention.wording import numbered_repeats, plural, power_of_ten
from tests.support.apptest import open_page

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


@pytest.mark.parametrize(
    ("value", "digits", "written"),
    [
        (2.4e-16, 0, "about 10⁻¹⁶"),
        (2.4e-16, 1, "2.4 × 10⁻¹⁶"),
        (7e-16, 0, "about 10⁻¹⁵"),  # the nearest power: log10 7e-16 = −15.2
        (9.96e-5, 1, "1.0 × 10⁻⁴"),  # the mantissa rounds up to 10: one power more
        (-3.2e-7, 1, "−3.2 × 10⁻⁷"),
        (3.0e5, 0, "about 10⁵"),
        (12345.0, 2, "1.23 × 10⁴"),
        (0.042, 0, "0.042"),
        (-0.5, 1, "−0.5"),
        (1234.5, 1, "1,234.5"),
        (100.0, 0, "100"),
        (0.0, 1, "0"),
    ],
)
def test_power_of_ten_writes_no_e_notation(value, digits, written):
    assert power_of_ten(value, digits) == written


@pytest.mark.parametrize("value", [1e-300, 3.7e-16, 4.2e-9, 0.00123, 0.5, 7.7, 999.9, 5e7, 1e300])
def test_power_of_ten_reads_back_as_the_number(value):
    """Parsed back (× 10ⁿ by hand), the text is the number to its stated precision."""
    text = power_of_ten(value, 2)
    assert "e" not in text.lower()
    digits = str.maketrans("⁻⁰¹²³⁴⁵⁶⁷⁸⁹−", "-0123456789-")
    if " × 10" in text:
        mantissa, power = text.split(" × 10")
        back = float(mantissa) * 10.0 ** int(power.translate(digits))
    else:
        back = float(text.replace(",", ""))
    assert back == pytest.approx(value, rel=6e-3)


@pytest.mark.parametrize("bad", [float("nan"), float("inf")])
def test_power_of_ten_refuses_what_is_not_a_number(bad):
    with pytest.raises(ValueError, match="finite"):
        power_of_ten(bad)


def test_numbered_repeats_tells_equal_tokens_apart_and_leaves_the_rest():
    names = ["the", "cat", "sat", "on", "the", "mat", "cat"]
    numbered = numbered_repeats(names)
    assert len(set(numbered)) == len(names)
    assert numbered == ["the (0)", "cat (1)", "sat", "on", "the (4)", "mat", "cat (6)"]


def test_unique_labels_number_tokens_that_cutting_makes_equal():
    # Two different long tokens are cut to the same 24-character label: both get numbers.
    long_a, long_b = "x" * 30 + "a", "x" * 30 + "b"
    labels = unique_labels([long_a, "<b>", long_b])
    assert labels[0] != labels[2] and labels[0].endswith(" (0)") and labels[2].endswith(" (2)")
    assert labels[1] == "&lt;b&gt;"
