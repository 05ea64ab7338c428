"""How big a nudge each sublayer gives every token: the residual stream's length as it
enters the sublayer, the length of the update the sublayer adds, and their ratio, stacked
over a block's sublayers and summarised by the median token (a few tokens, such as
[CLS], take far larger nudges than the rest, so a mean would misrepresent them)."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from attention.core.blocks import BlockTrace


@dataclass(frozen=True)
class Nudges:
    """Per sublayer (rows, in the block's order) and token (columns)."""

    names: list[str]
    stream_norms: np.ndarray  # (sublayers, n) ‖stream‖ entering the sublayer
    update_norms: np.ndarray  # (sublayers, n) ‖update‖ it adds
    ratios: np.ndarray  # (sublayers, n) ‖update‖ / ‖stream‖

    @property
    def median_ratios(self) -> np.ndarray:
        """(sublayers,) the median token's ‖update‖ / ‖stream‖."""
        return median_over_tokens(self.ratios)


def block_nudges(trace: BlockTrace) -> Nudges:
    """Every sublayer's norms and ratios for one unbatched block pass."""
    steps = trace.sublayers
    return Nudges(
        [step.name for step in steps],
        np.array([step.stream_norms for step in steps]),
        np.array([step.update_norms for step in steps]),
        np.array([step.update_ratios for step in steps]),
    )


def median_over_tokens(ratios: np.ndarray) -> np.ndarray:
    """The median over the last (token) axis of ‖update‖ / ‖stream‖ ratios shaped
    (..., n): one typical nudge per sublayer (and layer)."""
    return np.median(np.asarray(ratios), axis=-1)


SMALL_NUDGE = 0.3  # an update under 30 % of the stream's length leaves the token nearly as it was


def nudge_sizes(ratios: np.ndarray) -> dict[str, int]:
    """How many of the given median ratios are small (< SMALL_NUDGE), sizeable but shorter
    than the stream, or at least as long as the stream."""
    ratios = np.asarray(ratios, dtype=np.float64).ravel()
    return {
        "small": int((ratios < SMALL_NUDGE).sum()),
        "sizeable": int(((ratios >= SMALL_NUDGE) & (ratios < 1)).sum()),
        "large": int((ratios >= 1).sum()),
    }
