"""Shape checks for the builders' arrays, so a wrong array fails with a message naming
it (as bertviz's views do) instead of a broadcasting error deep in a builder or, worse,
a figure that quietly draws the wrong tokens."""

from __future__ import annotations

import numpy as np


def check_shape(name: str, array: object, expected: tuple[int | None, ...]) -> None:
    """Raise ValueError naming `name` unless `array` has the `expected` shape (None: any
    length along that axis)."""
    given = np.shape(array)
    fits = len(given) == len(expected) and all(
        want is None or want == got for want, got in zip(expected, given, strict=True)
    )
    if not fits:
        shown = ", ".join("any" if want is None else str(want) for want in expected)
        raise ValueError(f"{name} must have shape ({shown}); got shape {given}.")
