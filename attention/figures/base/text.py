"""Make user text safe and short for Plotly labels and hover text.

Plotly renders a subset of HTML in text (<b>, <a href>, <br>…), so a token such as
`<b>` would be drawn bold; escaping turns every user string into literal text.
"""

from __future__ import annotations

import html

from attention.wording import isolated, numbered_repeats

MAX_LABEL_CHARS = 24


def safe_label(token: str, max_chars: int = MAX_LABEL_CHARS) -> str:
    """The token as literal text for Plotly: HTML-escaped, cut to `max_chars`, and
    isolated from the text around it when it is right-to-left."""
    shown = token if len(token) <= max_chars else token[: max_chars - 1] + "…"
    return isolated(html.escape(shown, quote=False))


def unique_labels(tokens: list[str]) -> list[str]:
    """Escaped labels for categorical axes: a token that occurs more than once gets its
    position appended ("the (0)", "the (4)"), since Plotly merges equal categories."""
    return numbered_repeats([safe_label(t) for t in tokens])
