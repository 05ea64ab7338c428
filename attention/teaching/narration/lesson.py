"""The Lesson in words: the last slide's results (each question with the student's
result, from the answers kept in the session) and every chart's text alternative."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence

from attention.experiments.training.summary import LayoutFacts
from attention.teaching.markdown import literal
from attention.wording import plural, power_of_ten

RIGHT, WRONG = "right", "not right the first time"
REVEALED, OPEN = "shown without an answer", "not answered"


def outcome(step_id: str, answers: Mapping[str, bool], revealed: set[str]) -> str:
    """One question's result: right or wrong first answer, revealed, or still open."""
    if step_id in answers:
        return RIGHT if answers[step_id] else WRONG
    return REVEALED if step_id in revealed else OPEN


def result_rows(
    titles: Sequence[str], ids: Sequence[str], answers: Mapping[str, bool], revealed: set[str]
) -> list[dict[str, object]]:
    """A row per step: its number, its question and the result."""
    return [
        {"step": number, "question": title, "result": outcome(step_id, answers, revealed)}
        for number, (title, step_id) in enumerate(zip(titles, ids, strict=True), start=1)
    ]


def results_sentence(rows: Sequence[Mapping[str, object]]) -> str:
    """ "9 of 14 questions answered, 6 right the first time; still open: steps 3, 5." """
    total = len(rows)
    answered = [r for r in rows if r["result"] in (RIGHT, WRONG)]
    if not answered:
        return f"None of the {total} {plural(total, 'question')} answered yet in this session."
    right = sum(r["result"] == RIGHT for r in rows)
    sentence = (
        f"{len(answered)} of {total} {plural(total, 'question')} answered, "
        f"{right} right the first time"
    )
    open_steps = [str(r["step"]) for r in rows if r["result"] in (OPEN, REVEALED)]
    if open_steps:
        sentence += f"; not answered: {plural(len(open_steps), 'step')} {', '.join(open_steps)}"
    return sentence + "."


def _written(value: float) -> str:
    """A whole number as one ("24"), any other through power_of_ten ("2.4 × 10⁻¹⁶")."""
    if value.is_integer() and abs(value) < 1e4:
        return f"{int(value):,}".replace("-", "−")
    return power_of_ten(value, 1)


def _span(values: list[float]) -> str:
    low, high = min(values), max(values)
    if low == high:
        return f"all {_written(low)}"
    return f"from {_written(low)} to {_written(high)}"


def _numbers(values: object) -> list[float]:
    flat = values if isinstance(values, list | tuple) else []
    out: list[float] = []
    for value in flat:
        if isinstance(value, list | tuple):
            out += _numbers(value)
        elif isinstance(value, int | float) and not isinstance(value, bool):
            out += [float(value)] if math.isfinite(value) else []
    return out


def _part(trace: dict) -> str | None:
    """What one drawn trace shows, counted and ranged, naming no token."""
    kind = trace.get("type", "scatter")
    if kind in ("scatter", "scattergl"):
        xs, ys = _numbers(trace.get("x")), _numbers(trace.get("y"))
        if not xs or not ys:
            return None
        if len(ys) == 1:
            return f"1 point at ({_written(xs[0])}, {_written(ys[0])})"
        return f"{len(ys):,} points (x {_span(xs)}, y {_span(ys)})"
    if kind == "bar":
        horizontal = trace.get("orientation") == "h"
        values = _numbers(trace.get("x") if horizontal else trace.get("y"))
        return f"{len(values):,} {plural(len(values), 'bar')} {_span(values)}" if values else None
    if kind == "heatmap":
        z = trace.get("z") or []
        values = _numbers(z)
        if not values:
            return None
        columns = max((len(row) for row in z), default=0)
        return f"a map of {len(z)} × {columns} cells, values {_span(values)}"
    if kind == "table":
        columns = trace["cells"]["values"]
        return f"a table of {len(columns[0])} rows × {len(columns)} columns"
    return None


def chart_outline(spec: dict, max_rows: int, max_columns: int) -> str:
    """A Lesson chart's text alternative, computed from the figure dict it draws: what
    each drawn trace holds (points, bars, cells, table rows) and the range of its
    numbers. It names no token, so it never states a question's answer. The table
    shows at most `max_rows` × `max_columns` of each part."""
    parts = [
        part
        for trace in spec.get("data", [])
        if trace.get("hoverinfo") != "skip" and (part := _part(trace)) is not None
    ]
    if not parts:
        return "The chart draws no numbers."
    return (
        "The chart draws " + "; ".join(parts) + f". “Show as table” lists the numbers, at most "
        f"{max_rows} rows and {max_columns} columns of each part."
    )


def _lookups(layout: LayoutFacts, marks: tuple[str, str]) -> str:
    on_a, on_b = layout.heads_on
    return f"{on_a} on {literal(marks[0])}, {on_b} on {literal(marks[1])}"


def trained_answer(facts: Mapping[str, LayoutFacts], marks: tuple[str, str], seed: int) -> str:
    """Q1 and Q2 answered from the trained run of "Why several heads?" §4: each layout's
    accuracy, whether the full-size heads divide the two lookups as the split heads do,
    and what the split buys (the one head's parameter count). Every claim is chosen by
    the measured numbers."""
    one, split, full = facts["one"], facts["split"], facts["full"]
    scores = ", ".join(f"{literal(f.label)} {f.accuracy:.0%}" for f in (one, split, full))
    if full.split_between_lookups and split.split_between_lookups:
        verdict = (
            f"Full-size heads divide the lookups too ({_lookups(full, marks)}): "
            "specialising does not need the smaller space"
        )
    elif full.split_between_lookups:
        verdict = (
            f"Full-size heads divide the lookups ({_lookups(full, marks)}); in this run the "
            f"split heads do not ({_lookups(split, marks)})"
        )
    elif split.split_between_lookups:
        verdict = (
            f"In this run only the split heads divide the lookups "
            f"({_lookups(split, marks)}; full-size: {_lookups(full, marks)})"
        )
    else:
        verdict = "In this run neither layout's heads divide the lookups between them"
    if split.parameters == one.parameters:
        cost = f"the split costs one head's {split.parameters:,} parameters"
    else:
        cost = f"the split costs {split.parameters:,} parameters, one head {one.parameters:,}"
    return (
        f"**Trained on two lookups** (seed {seed}), held-out sequences right: {scores}. "
        f"{verdict}; {cost}, full-size heads {full.parameters:,}."
    )


def training_progress(done: float, seed: int) -> str:
    """The progress bar's text while the step's run trains."""
    return (
        f"Training one head, split heads and full-size heads on the two-lookup task "
        f"(seed {seed}): {done:.0%} done."
    )


def training_done(seed: int) -> str:
    """What the step says of its finished run before the reveal (its result answers the
    question)."""
    return f"Trained on the two-lookup task (seed {seed}): the run's result comes with the answer."
