"""How computed numbers, counts and the user's words are written in sentences, figures and
tables alike: "1 dimension", not "1 dimensions"; ">99%", never a rounded "100%"; "2.4 ×
10⁻¹⁶", never e-notation; a right-to-left word isolated from the numbers around it. The
bottom of the library: it imports nothing from it."""

from __future__ import annotations

import math
import unicodedata

FIRST_STRONG_ISOLATE, POP_DIRECTIONAL_ISOLATE = "\u2068", "\u2069"


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


def percent(share: float, decimals: int = 0) -> str:
    """A share as a percentage rounded to `decimals`, in a way rounding cannot make false:
    a share just under 1 reads ">99%" (">99.9%"), not "100%", and one just over 0 reads
    "<1%" ("<0.1%"), not "0%". Exactly 0 and 1 read "0%" and "100%"."""
    if share in (0, 1):
        return f"{100 * share:.0f}%"
    unit = 10.0**-decimals  # the smallest step shown, in percent
    if 1 - unit / 200 <= share < 1:
        return f">{100 - unit:.{decimals}f}%"
    if 0 < share < unit / 200:
        return f"<{unit:.{decimals}f}%"
    return f"{100 * share:.{decimals}f}%"


_SUPERSCRIPT = str.maketrans("-0123456789", "⁻⁰¹²³⁴⁵⁶⁷⁸⁹")
PLAIN_RANGE = (1e-3, 1e4)  # magnitudes written as ordinary decimals


def power_of_ten(value: float, digits: int = 1) -> str:
    """`value` as a class reads it aloud, never in e-notation: ordinary decimals for
    0.001 ≤ |value| < 10 000 ("0.042", "1,234.5"), else "2.4 × 10⁻¹⁶" with `digits`
    decimals of the mantissa, or "about 10⁻¹⁶" (the nearest power) when `digits` is 0 (then
    ordinary decimals keep two digits)."""
    value = float(value)
    if value != value or value in (float("inf"), float("-inf")):
        raise ValueError(f"value must be a finite number; got {value!r}.")
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


def isolated(text: str) -> str:
    """`text` as a unit of its own direction when it holds right-to-left letters: wrapped
    in Unicode's first-strong isolate, so a sentence around it keeps its order (without it,
    "30 % on “مرحبا”, 25 % on “,”" came out with the numbers and quotes swapped)."""
    if any(unicodedata.bidirectional(c) in ("R", "AL") for c in text):
        return f"{FIRST_STRONG_ISOLATE}{text}{POP_DIRECTIONAL_ISOLATE}"
    return text
