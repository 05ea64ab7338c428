"""The whole Lesson as one self-contained HTML file for the class: every step's words,
measured numbers and interactive figure, plotly.js embedded once, so it opens from disk
or a learning-management system with no server and no network. Figures are written by
Plotly's own HTML writer; everything the user typed is HTML-escaped."""

from __future__ import annotations

import html
from collections.abc import Sequence
from dataclasses import dataclass

import plotly.io as pio

from attention.teaching.lesson.content import StepText, bold_to_html, fill
from attention.teaching.lesson.steps import StepView

STYLE = """
body { font-family: system-ui, sans-serif; max-width: 1100px; margin: 2rem auto;
       padding: 0 1rem; color: #1a1a1a; line-height: 1.5; }
section { border-top: 1px solid #ddd; padding-top: 1rem; margin-top: 2rem; }
.step { color: #666; font-size: 0.9rem; }
.quiz { background: #f6f7f9; padding: 0.6rem 1rem; border-radius: 6px; }
.setting { color: #666; font-size: 0.85rem; }
"""


@dataclass(frozen=True)
class ExportedStep:
    """One step to write: its words and its computed view."""

    text: StepText
    view: StepView


def _escape(value: str) -> str:
    return html.escape(value, quote=True)


def _paragraph(template: str, facts: dict[str, object]) -> str:
    """A sentence of the lesson as HTML: its own **bold**, the user's words escaped."""
    return f"<p>{fill(bold_to_html(_escape(template)), facts, _escape)}</p>"


def _section(number: int, total: int, step: ExportedStep, include_plotlyjs: bool) -> str:
    text, view = step.text, step.view
    figure = pio.to_html(
        view.figure if view.revealed_figure is None else view.revealed_figure,
        full_html=False,
        include_plotlyjs=include_plotlyjs,
        config={"displaylogo": False, "toImageButtonOptions": {"scale": 2}},
    )
    options = "".join(f"<li>{_escape(option)}</li>" for option in view.quiz.options)
    because = _paragraph(text.because, {**view.facts, "answer": view.quiz.right})
    return (
        f"<section><p class='step'>Step {number} of {total}</p>"
        f"<h2>{_escape(text.title)}</h2>"
        + "".join(_paragraph(line, view.facts) for line in text.notice)
        + (_paragraph(text.details, view.facts) if text.details else "")
        + figure
        + f"<p class='setting'>{_escape(view.setting)}</p>"
        + "<div class='quiz'>"
        + _paragraph(f"**Check yourself:** {text.question}", view.facts)
        + f"<ol type='A'>{options}</ol>"
        + f"<details><summary>Answer</summary><p>{_escape(view.quiz.right)}</p>{because}"
        + "</details></div></section>"
    )


def lesson_html(steps: Sequence[ExportedStep], title: str, subtitle: str) -> str:
    """The lesson as one HTML document (UTF-8); `subtitle` says what it was computed on."""
    sections = "".join(
        _section(number, len(steps), step, include_plotlyjs=number == 1)
        for number, step in enumerate(steps, start=1)
    )
    return (
        "<!DOCTYPE html><html lang='en'><head><meta charset='utf-8'>"
        f"<title>{_escape(title)}</title><style>{STYLE}</style></head><body>"
        f"<h1>{_escape(title)}</h1><p>{_escape(subtitle)}</p>{sections}</body></html>"
    )
