"""Each Lesson step's inputs, gathered from the cached data layer, and its own control:
the glue between the scenario and attention.lesson.steps. One function per step, in
lesson order; LESSON_STEPS pairs them with their words from assets/lesson.toml."""

from __future__ import annotations

import dataclasses

from attention.figures.head_spaces import before_figure, head_space_figure
from attention.head_spaces import HeadSpaces
from attention.lesson.content import lesson_text
from attention.lesson.steps import StepView, points_step, qkv_step
from ui import data
from ui.lesson import Control, LessonStep
from ui.scenario import D_MODEL_CHOICES, Scenario


def _toy(scenario: Scenario, **changes: object) -> Scenario:
    """The scenario on the toy source (the lesson's first steps use the sentence's own
    words), with a step's control applied."""
    return dataclasses.replace(scenario, source="toy", **changes)


def _setting(s: Scenario) -> str:
    """The caption's account of a toy computation: sentence, sizes and seed."""
    text = data.shown_text(s.text)
    sentence = text if len(text) <= 60 else text[:59] + "…"
    return (
        f"“{sentence}” · word vectors from MiniLM, random heads (seed {s.seed}) · "
        f"d_model {s.d_model} · {s.heads} heads of {s.resolved_d_head}"
    )


def _points_control(scenario: Scenario) -> Control:
    return Control("lesson_d_model", D_MODEL_CHOICES, scenario.d_model)


def _points(scenario: Scenario, d_model: object) -> StepView:
    toy = _toy(scenario, d_model=int(d_model))
    run, spaces = data.run(toy), data.spaces(toy)
    figure = before_figure(spaces.before, run.tokens, toy.focus)
    return points_step(run.tokens, run.x, spaces.before, toy.focus, figure, _setting(toy))


def _qkv_control(scenario: Scenario) -> Control:
    heads = _toy(scenario).computation().heads
    return Control("lesson_head", tuple(range(1, heads + 1)), 1, lambda h: f"head {h}")


def _qkv(scenario: Scenario, head: object) -> StepView:
    toy = _toy(scenario)
    run, spaces = data.run(toy), data.spaces(toy)
    h = int(head) - 1
    one = HeadSpaces(spaces.before, [spaces.heads[h]])
    figure = head_space_figure(one, run.tokens, run.trace.weights[h : h + 1], toy.focus, 1)
    return qkv_step(run.tokens, run.trace, h, toy.focus, figure, _setting(toy))


_STEPS = {
    "points": (_points_control, _points),
    "qkv": (_qkv_control, _qkv),
}
LESSON_STEPS = [LessonStep(text, *_STEPS[text.id]) for text in lesson_text()]
