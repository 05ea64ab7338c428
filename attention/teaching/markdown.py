"""User text inside markdown: escaped so it shows literally — no emphasis, links, LaTeX
or HTML made from what a user typed. Plain Python, used by the narration functions, the
URL table's notices and the pages."""

from __future__ import annotations

import html
import re

from attention.wording import isolated

_SPECIAL = re.compile(r"([\\`*_{}\[\]()#+\-.!|~>$:])")


def literal(text: str) -> str:
    """`text` escaped for st.markdown: markdown and LaTeX characters get a backslash,
    angle brackets and ampersands become HTML entities; right-to-left text is isolated
    from the sentence around it."""
    return isolated(_SPECIAL.sub(r"\\\1", html.escape(text, quote=False)))
