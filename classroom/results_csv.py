"""The class's results as CSV for the lecturer: one row per step, round and option with its
count, how many students answered that round and the share of them who chose the step's
right answer (counts only, no device id)."""

from __future__ import annotations

import csv
import io
from collections.abc import Mapping, Sequence

from classroom.store import RoundResult

COLUMNS = ("step", "round", "option", "votes", "answered", "share_right")


def share_right(result: RoundResult, right: str | None) -> str:
    """The fraction of the round's answers that were `right`, to three decimals; empty when
    the right answer is not known (the HTTP endpoint: only the lecturer's page computes it)
    or nobody answered."""
    if right is None or not result.answered:
        return ""
    return f"{result.votes.get(right, 0) / result.answered:.3f}"


def results_csv(results: Sequence[RoundResult], right: Mapping[int, str] | None = None) -> str:
    """The CSV text of `results` (rows in step, round, then option order); `right` maps a
    step to its right answer, as the lecturer's page computed it."""
    right = right or {}
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(COLUMNS)
    for result in sorted(results, key=lambda r: (r.step, r.round)):
        share = share_right(result, right.get(result.step))
        for option in sorted(result.votes):
            writer.writerow(
                (result.step, result.round, option, result.votes[option], result.answered, share)
            )
    return out.getvalue()
