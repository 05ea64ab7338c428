"""Make user text safe and short for Plotly labels and hover text, and write the
numbers that figures and tables share in one way.

Plotly renders a subset of HTML in text (<b>, <a href>, <br>…), so a token such as
`<b>` would be drawn bold; escaping turns every user string into literal text.
"""

from __future__ import annotations

import html

MAX_LABEL_CHARS = 24


def safe_label(token: str, max_chars: int = MAX_LABEL_CHARS) -> str:
    """The token as literal text for Plotly: HTML-escaped and cut to `max_chars`."""
    shown = token if len(token) <= max_chars else token[: max_chars - 1] + "…"
    return html.escape(shown, quote=False)


def unique_labels(tokens: list[str]) -> list[str]:
    """Escaped labels for categorical axes: a token that occurs more than once gets its
    position appended ("the (0)", "the (4)"), since Plotly merges equal categories."""
    labels = [safe_label(t) for t in tokens]
    counts: dict[str, int] = {}
    for label in labels:
        counts[label] = counts.get(label, 0) + 1
    return [f"{label} ({i})" if counts[label] > 1 else label for i, label in enumerate(labels)]


def percent(value: float) -> str:
    """A share as a percentage with one decimal ("49.7%"), or a whole number within
    half a percent of 0 or 1 ("100%", "0%")."""
    return f"{value:.0%}" if value >= 0.995 or value < 0.005 else f"{value:.1%}"
