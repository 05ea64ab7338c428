"""The class's results as CSV for the lecturer: one row per step, round and option with its
count and how many students answered that round (counts only, no device id)."""

from __future__ import annotations

import csv
import io
from collections.abc import Sequence

from classroom.store import RoundResult

COLUMNS = ("step", "round", "option", "votes", "answered")


def results_csv(results: Sequence[RoundResult]) -> str:
    """The CSV text of `results` (rows in step, round, then option order)."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(COLUMNS)
    for result in sorted(results, key=lambda r: (r.step, r.round)):
        for option in sorted(result.votes):
            writer.writerow(
                (result.step, result.round, option, result.votes[option], result.answered)
            )
    return out.getvalue()
