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
