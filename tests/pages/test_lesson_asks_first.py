"""The Lesson asks before it tells: before a step's quiz is answered, its right answer
(and, for a numeric answer, its number) appears nowhere in the page's visible text
outside the quiz's options: not in the words, the captions, the figure's titles, the
controls or the messages. After an answer or Reveal, the step's sentences and the
marked answer appear; Reveal works in presenter mode; a step's own control and the
sidebar show one value of d_model and of the head count; Reset puts the lesson's
defaults back."""

from __future__ import annotations

import json
import re

import pytest

from attention.teaching.lesson.content import lesson_text
from attention.teaching.markdown import literal
from tests.support.apptest import check_answer, open_page, quiz_of

PAGE = "pages/lesson.py"
STEPS = [step.id for step in lesson_text()]
OTHER_SENTENCE = "My sister gave the old dog a bone because it looked hungry."


def at_step(number: int, **query: str):
    at = open_page(PAGE, step=str(number), **query)
    assert not at.exception, at.exception
    return at


def figure_words(figure: dict) -> list[str]:
    """The words a figure states: its title, axis and legend titles and annotations
    (not its tick labels, trace names or hover text: those are the view itself)."""
    layout = figure.get("layout", {})
    words = [(layout.get("title") or {}).get("text", "")]
    words += [a.get("text", "") for a in layout.get("annotations", [])]
    words.append(((layout.get("legend") or {}).get("title") or {}).get("text", ""))
    for name, axis in layout.items():
        if re.match(r"^[xy]axis\d*$", name):
            words.append((axis.get("title") or {}).get("text", ""))
    return words


def visible_text(at) -> str:
    """Everything the page says outside the quiz's options and the navigation ("Step 4
    of 12" is where the lesson is, not an answer)."""
    parts = [
        e.value for kind in ("markdown", "caption", "header", "subheader") for e in at.get(kind)
    ]
    parts += [e.value for kind in ("info", "success", "warning", "error") for e in at.get(kind)]
    parts += [str(m.label) + " " + str(m.value) for m in at.get("metric")]
    parts += [r.label for r in at.radio]  # the question itself, not its options
    for slider in at.select_slider:  # the "Try this" control: its label and shown value
        parts += [slider.label, str(slider.format_func(slider.value))]
    for chart in at.get("plotly_chart"):
        parts += figure_words(json.loads(chart.proto.spec))
    return re.sub(r"\b[Ss]tep \d+( of \d+)?", "step", "\n".join(p for p in parts if p))


def count(text: str, option: str) -> int:
    """How often `option` occurs in `text` as a whole word or number (so "3" is not
    found in "384", nor "cat" in "catch")."""
    return len(re.findall(rf"(?<![\w.]){re.escape(option)}(?![\w])", text))


def number_of(option: str) -> str | None:
    """The number of a numeric option ("×4.0" → "4.0", "27%" → "27", "384")."""
    number = re.fullmatch(r"×?\s*(\d[\d,.]*)\s*%?", option)
    return number.group(1) if number else None


def singles_out(text: str, right: str, wrong: list[str]) -> bool:
    """Whether `text` names the right option (or a numeric option's number) more often
    than any wrong one: a caption quoting the whole sentence, or panels labelled "head 1"
    and "head 2", name the candidates alike and single none out."""
    forms = [(right, wrong)]
    if number_of(right):
        forms.append((number_of(right), [n for w in wrong if (n := number_of(w))]))
    for shown, others in forms:
        mentioned = max(count(text, shown), count(text, literal(shown)))
        if mentioned > max([count(text, w) for w in others], default=0):
            return True
    return False


def right_after_answering(at) -> str:
    """Answer the quiz with its first option; the feedback names the right option."""
    quiz = quiz_of(at)
    first = quiz.options[0].replace("\\", "")
    check_answer(at, first)
    assert not at.exception
    if at.success:
        return first
    (feedback,) = [w.value for w in at.warning]
    return re.match(r"Not quite: it is “(.+?)”\. ", feedback).group(1).replace("\\", "")


def notice_words(number: int) -> str:
    """The longest stretch of the step's "what to notice" with no computed value in it."""
    notice = lesson_text()[number - 1].notice
    return max((part for line in notice for part in re.split(r"\{[^}]*\}", line)), key=len)


@pytest.mark.parametrize("text", [None, OTHER_SENTENCE], ids=["default", "other"])
@pytest.mark.parametrize("number", range(1, len(STEPS) + 1))
def test_no_step_states_its_answer_before_asking(number, text):
    at = at_step(number, **({"text": text} if text else {}))
    assert quiz_of(at).value is None
    options = [o.replace("\\", "") for o in quiz_of(at).options]
    shown = visible_text(at)
    notice = notice_words(number)
    assert len(notice) >= 12 and notice not in shown  # what to notice waits
    right = right_after_answering(at)
    wrong = [o for o in options if o != right]
    assert not singles_out(shown, right, wrong), (STEPS[number - 1], right, shown)
    assert notice in visible_text(at)  # answered: the step says what to notice
    assert not re.search(r"\d[eE][+-]?\d", visible_text(at))  # read aloud: no e-notation


def test_reveal_in_presenter_mode_shows_the_sentences_and_marks_the_answer():
    number = STEPS.index("looks") + 1
    at = at_step(number, present="1")
    notice = notice_words(number)
    assert notice not in visible_text(at) and not at.info
    at.button(key="lesson_reveal").click().run()
    assert not at.exception
    assert notice in visible_text(at)
    (marked,) = [i.value for i in at.info if i.value.startswith("The answer: “")]
    right = re.match(r"The answer: “(.+?)”", marked).group(1)
    assert right in [o.replace("\\", "") for o in quiz_of(at).options]
    assert at.button(key="lesson_reveal").disabled  # revealed once, for this step only
    next(b for b in at.button if b.label == "Next ▶").click().run()
    assert notice_words(number + 1) not in visible_text(at)  # the next step asks first


def test_a_steps_control_and_the_sidebar_show_one_d_model_and_one_head_count():
    at = at_step(STEPS.index("points") + 1)
    at.select_slider(key="lesson_d_model").set_value(96).run()
    assert at.sidebar.select_slider(key="d_model").value == 96
    assert at.query_params["d_model"] in ("96", ["96"])
    at.sidebar.select_slider(key="d_model").set_value(128).run()
    assert at.select_slider(key="lesson_d_model").value == 128
    cost = at_step(STEPS.index("cost") + 1)
    cost.select_slider(key="lesson_cost_heads").set_value(8).run()
    assert cost.sidebar.slider(key="heads").value == 8
    cost.sidebar.slider(key="heads").set_value(2).run()
    assert cost.select_slider(key="lesson_cost_heads").value == 2


def test_reset_puts_the_lessons_defaults_back_and_keeps_the_sentence():
    at = at_step(STEPS.index("points") + 1, text=OTHER_SENTENCE, seed="7", lesson_depth="3")
    at.select_slider(key="lesson_d_model").set_value(96).run()
    at.button(key="lesson_defaults").click().run()
    assert not at.exception
    assert at.sidebar.select_slider(key="d_model").value == 64
    assert at.select_slider(key="lesson_d_model").value == 64
    assert "seed" not in at.query_params and "lesson_depth" not in at.query_params
    assert at.query_params["text"] in (OTHER_SENTENCE, [OTHER_SENTENCE])
