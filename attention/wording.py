"""Small helpers for sentences built from computed numbers, so a count of 1 reads
"1 dimension", not "1 dimensions"."""

from __future__ import annotations


def plural(count: int, singular: str, plural_form: str | None = None) -> str:
    """`singular` when `count` is 1, else `plural_form` (default: `singular` + "s")."""
    if count == 1:
        return singular
    return singular + "s" if plural_form is None else plural_form
