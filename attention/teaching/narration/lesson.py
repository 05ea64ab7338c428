"""The Lesson's last slide in words: each question with the student's result, and the
count of first answers right, from the answers kept in the session."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from attention.teaching.wording import plural

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
