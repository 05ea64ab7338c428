"""The Lesson's last slide: after the last step, each question with this session's
result (right, wrong, revealed, open), where to go next (pages of the app) and the
export, in presenter mode too; its words checked on load."""

from __future__ import annotations

import pytest

from attention.assets import AssetError
from attention.teaching.lesson.content import lesson_end, lesson_text, parse_end
from attention.teaching.narration.lesson import result_rows, results_sentence
from tests.support.apptest import check_answer, open_page
from ui.navigation import PAGES

PAGE = "pages/lesson.py"
STEPS = [step.id for step in lesson_text()]
LAST = len(STEPS) + 1


def test_results_say_what_each_question_got():
    rows = result_rows(
        ["A?", "B?", "C?", "D?"], ["a", "b", "c", "d"], {"a": True, "b": False}, {"c"}
    )
    assert [r["result"] for r in rows] == [
        "right",
        "not right the first time",
        "shown without an answer",
        "not answered",
    ]
    assert [r["step"] for r in rows] == [1, 2, 3, 4]
    assert results_sentence(rows) == (
        "2 of 4 questions answered, 1 right the first time; not answered: steps 3, 4."
    )
    one = result_rows(["A?"], ["a"], {"a": True}, set())
    assert results_sentence(one) == "1 of 1 question answered, 1 right the first time."
    none = result_rows(["A?", "B?"], ["a", "b"], {}, {"a"})
    assert results_sentence(none) == "None of the 2 questions answered yet in this session."


def test_the_end_names_pages_of_the_app_and_is_checked_on_load():
    pages = {page.path for page in PAGES}
    assert lesson_end().next and all(entry.page in pages for entry in lesson_end().next)
    with pytest.raises(AssetError, match="title"):
        parse_end({"end": {"next": []}}, "x.toml")
    with pytest.raises(AssetError, match=r"pages/x\.py"):
        parse_end(
            {"end": {"title": "T", "notes": "s", "next": [{"page": "home", "why": "w"}]}}, "x.toml"
        )


def test_the_last_slide_lists_this_sessions_results_in_presenter_mode():
    at = open_page(PAGE, step="1", present="1")
    assert not at.exception
    check_answer(at)  # right or not: read it back
    first = "right" if at.success else "not right the first time"
    next(b for b in at.button if b.label == "Next ▶").click().run()
    at.button(key="lesson_reveal").click().run()  # step 2: revealed, not answered
    at.selectbox(key="lesson_step").set_value(len(STEPS)).run()
    assert not next(b for b in at.button if b.label == "Next ▶").disabled  # on to the end
    next(b for b in at.button if b.label == "Next ▶").click().run()
    assert not at.exception
    assert at.selectbox(key="lesson_step").value == LAST
    assert at.query_params["step"] in (str(LAST), [str(LAST)])
    assert at.header[0].value == lesson_end().title
    (table,) = at.table
    rows = table.value.to_dict("records")
    assert [r["step"] for r in rows] == list(range(1, LAST))
    assert [r["result"] for r in rows[:3]] == [first, "shown without an answer", "not answered"]
    answered = 1
    assert f"{answered} of {len(STEPS)} questions answered" in at.markdown[1].value
    assert len(at.get("page_link")) == len(lesson_end().next)
    assert at.get("download_button"), "the export is reachable in presenter mode"
    assert next(b for b in at.button if b.label == "Next ▶").disabled


def test_the_url_opens_the_last_slide_and_no_further():
    at = open_page(PAGE, step=str(LAST))
    assert not at.exception and at.header[0].value == lesson_end().title
    beyond = open_page(PAGE, step=str(LAST + 1))
    assert beyond.selectbox(key="lesson_step").value == 1
