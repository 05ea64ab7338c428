"""The class's results as CSV for the lecturer: one row per step, round and option with its
count, how many students answered that round and the share of them who chose the step's
right answer (counts only, no device id)."""

from __future__ import annotations

import csv
import io
from collections.abc import Sequence

from classroom.store import RoundResult

COLUMNS = ("step", "round", "option", "votes", "answered", "share_right")


def share_right(result: RoundResult) -> str:
    """The fraction of the round's answers that were the step's right answer, to three
    decimals; empty when the right answer is not known (the lecturer's page never sent
    the step) or nobody answered."""
    if not result.right or not result.answered:
        return ""
    return f"{result.votes.get(result.right, 0) / result.answered:.3f}"


def results_csv(results: Sequence[RoundResult]) -> str:
    """The CSV text of `results` (rows in step, round, then option order), each round's
    share right from the right answer the store kept for its step."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(COLUMNS)
    for result in sorted(results, key=lambda r: (r.step, r.round)):
        share = share_right(result)
        for option in sorted(result.votes):
            writer.writerow(
                (result.step, result.round, option, result.votes[option], result.answered, share)
            )
    return out.getvalue()
