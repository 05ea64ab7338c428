"""Small helpers for sentences built from computed numbers, so a count of 1 reads
"1 dimension", not "1 dimensions"."""

from __future__ import annotations

import math


def plural(count: int, singular: str, plural_form: str | None = None) -> str:
    """`singular` when `count` is 1, else `plural_form` (default: `singular` + "s")."""
    if count == 1:
        return singular
    return singular + "s" if plural_form is None else plural_form


def numbered_repeats(names: list[str]) -> list[str]:
    """The names with the position appended to every one that occurs more than once
    ("the (0)", "the (4)"), so equal tokens stay apart as options and axis categories."""
    counts: dict[str, int] = {}
    for name in names:
        counts[name] = counts.get(name, 0) + 1
    return [f"{name} ({i})" if counts[name] > 1 else name for i, name in enumerate(names)]


def blocks_note(n_tokens: int, blocks: int) -> str:
    """How a pooled map of `n_tokens` is drawn: "64 × 64 blocks of about 8.0 tokens …"."""
    return (
        f"{blocks} × {blocks} blocks of about {n_tokens / blocks:.1f} tokens (a block's "
        "share of the attention)"
    )


_SUPERSCRIPT = str.maketrans("-0123456789", "⁻⁰¹²³⁴⁵⁶⁷⁸⁹")
PLAIN_RANGE = (1e-3, 1e4)  # magnitudes written as ordinary decimals


def power_of_ten(value: float, digits: int = 1) -> str:
    """`value` as a class reads it aloud, never in e-notation: ordinary decimals for
    0.001 ≤ |value| < 10 000 ("0.042", "1,234.5"), else "2.4 × 10⁻¹⁶" with `digits`
    decimals of the mantissa, or "about 10⁻¹⁶" (the nearest power) when `digits` is 0 (then
    ordinary decimals keep two digits)."""
    value = float(value)
    if value != value or value in (float("inf"), float("-inf")):
        raise ValueError(f"a number to write must be finite; got {value!r}.")
    if value == 0:
        return "0"
    low, high = PLAIN_RANGE
    if low <= abs(value) < high:
        if digits == 0:  # two significant digits
            decimals = max(0, 1 - math.floor(math.log10(abs(value))))
            plain = f"{value:,.{decimals}f}"
        else:
            plain = f"{value:,.{digits + 2}g}" if abs(value) < 1 else f"{value:,.{digits}f}"
        return plain.replace("-", "−")
    sign = "−" if value < 0 else ""
    if digits == 0:
        return f"about {sign}10{_superscript(round(math.log10(abs(value))))}"
    mantissa, exponent = f"{abs(value):.{digits}e}".split("e")
    return f"{sign}{mantissa} × 10{_superscript(int(exponent))}"


def _superscript(exponent: int) -> str:
    return str(exponent).translate(_SUPERSCRIPT)
