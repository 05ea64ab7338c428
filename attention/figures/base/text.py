"""Make user text safe and short for Plotly labels and hover text, and write the
numbers that figures and tables share in one way.

Plotly renders a subset of HTML in text (<b>, <a href>, <br>…), so a token such as
`<b>` would be drawn bold; escaping turns every user string into literal text.
"""

from __future__ import annotations

import html

from attention.teaching.wording import numbered_repeats

MAX_LABEL_CHARS = 24


def safe_label(token: str, max_chars: int = MAX_LABEL_CHARS) -> str:
    """The token as literal text for Plotly: HTML-escaped and cut to `max_chars`."""
    shown = token if len(token) <= max_chars else token[: max_chars - 1] + "…"
    return html.escape(shown, quote=False)


def unique_labels(tokens: list[str]) -> list[str]:
    """Escaped labels for categorical axes: a token that occurs more than once gets its
    position appended ("the (0)", "the (4)"), since Plotly merges equal categories."""
    return numbered_repeats([safe_label(t) for t in tokens])


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
