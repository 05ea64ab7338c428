"""The live class's computed sentences: how many joined and answered, what the class
voted (the histogram's text alternative and table), and what a student's screen says
about the class. Options are user-derived text (tokens), so they are escaped."""

from __future__ import annotations

import string
from collections.abc import Mapping, Sequence

from attention.teaching.lesson.content import fill
from attention.teaching.markdown import literal
from attention.wording import plural

Rounds = Mapping[int, Mapping[str, int]]  # round → option → count


def class_counts(joined: int, answered: int, detached: int = 0, always: bool = False) -> str:
    """The projector's counts: "12 students joined · 8 answered this round · 2 exploring
    alone" (the last part only when someone explores alone, or `always`: the console)."""
    line = f"**{joined}** {plural(joined, 'student')} joined · **{answered}** answered this round"
    return line + (f" · **{detached}** exploring alone" if detached or always else "")


# Before anyone answers the projector says so in words: an empty histogram is one more
# chart for the projector's browser to draw at every Next, and shows nothing.
NO_ANSWERS_YET = "**The class's answers:** none yet; the histogram appears with the first vote."


def vote_summary(options: Sequence[str], rounds: Rounds) -> str:
    """The histogram in words: per round, how many answered and each option's count."""
    parts = []
    for round, counts in sorted(rounds.items()):
        answered = sum(counts.get(option, 0) for option in options)
        if not answered:
            parts.append(f"Round {round}: no answers yet.")
            continue
        each = ", ".join(f"“{literal(option)}” {counts.get(option, 0)}" for option in options)
        parts.append(f"Round {round}: {answered} {plural(answered, 'answer')}: {each}.")
    return " ".join(parts)


def vote_rows(options: Sequence[str], rounds: Rounds) -> list[dict[str, object]]:
    """The histogram as table rows: one per option, a column of counts per round."""
    return [
        {"answer": option, **{f"round {r}": rounds[r].get(option, 0) for r in sorted(rounds)}}
        for option in options
    ]


def student_status(step: int, steps: int, round: int, revealed: bool) -> str:
    """What a student's screen says about the class: "Step 3 of 9 · round 2 · answer shown"."""
    where = f"Step {step} of {steps}"
    if round > 1:
        where += f" · round {round}"
    return where + (" · answer shown" if revealed else " · vote open")


def acknowledged(option: str, vote_open: bool) -> str:
    """The student's receipt, shown once the store has the vote."""
    receipt = f"Your answer is in: “{literal(option)}”."
    return receipt + (" You can change it until the reveal." if vote_open else "")


def question_outline(template: str) -> str:
    """A step's question as the console shows it without the projector's view: each
    computed blank ("{focus}", "{head}") becomes "…" (the answers beside it are real)."""
    parts = []
    for text, name, _, _ in string.Formatter().parse(template):
        parts.append(text + ("…" if name is not None else ""))
    return "".join(parts)


def class_question(template: str, facts: Mapping[str, object]) -> str:
    """A step's question as the projector fills it, in plain text (no escaping): the class
    record carries it to the console and to students whose screens compute otherwise."""
    return fill(template, dict(facts), str)


def shown_question(question: str) -> str:
    """The class's question as markdown: its text escaped (tokens are user text)."""
    return f"**The question:** {literal(question)}"


def class_status(code: str, step: int, steps: int, round: int, revealed: bool) -> str:
    """A student's and the console's status line: "Class K7QX9P · Step 3 of 14 · round 2 ·
    answer shown"."""
    return f"Class {code} · " + student_status(step, steps, round, revealed)
