"""Small helpers for sentences built from computed numbers, so a count of 1 reads
"1 dimension", not "1 dimensions"."""

from __future__ import annotations


def plural(count: int, singular: str, plural_form: str | None = None) -> str:
    """`singular` when `count` is 1, else `plural_form` (default: `singular` + "s")."""
    if count == 1:
        return singular
    return singular + "s" if plural_form is None else plural_form


def blocks_note(n_tokens: int, blocks: int) -> str:
    """How a pooled map of `n_tokens` is drawn: "64 × 64 blocks of about 8.0 tokens …"."""
    return (
        f"{blocks} × {blocks} blocks of about {n_tokens / blocks:.1f} tokens (a block's "
        "share of the attention)"
    )


def percent(share: float) -> str:
    """A share as a whole percent that rounding cannot make false: a share just under 1
    reads ">99%", not "100%", and one just over 0 reads "<1%", not "0%"."""
    if 0.99 < share < 1:
        return ">99%"
    if 0 < share < 0.01:
        return "<1%"
    return f"{share:.0%}"
