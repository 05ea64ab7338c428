"""The Lesson's last slide: the questions with this session's results, the pages to go
to next, and the lesson to take home (reachable in presenter mode too)."""

from __future__ import annotations

import streamlit as st

from attention.teaching.lesson.content import lesson_end
from attention.teaching.markdown import literal
from attention.teaching.narration.lesson import result_rows, results_sentence
from ui.lesson import export, quiz, walk
from ui.lesson.step import LessonStep
from ui.navigation import PAGES
from view_state.scenario import Scenario

_TITLES = {page.path: page.title for page in PAGES}
_ICONS = {page.path: page.icon for page in PAGES}


def final_slide(steps: list[LessonStep], scenario: Scenario) -> None:
    """The last slide: results on the left, where to go next and the export on the right."""
    end = lesson_end()
    st.header(end.title)
    rows = result_rows(
        [s.text.title for s in steps],
        [s.text.id for s in steps],
        quiz.answers(),
        {s.text.id for s in steps if walk.phase(s.text.id) == walk.REVEALED},
    )
    results, onward = st.columns([3, 2])
    with results:
        st.markdown(f"**Your results.** {results_sentence(rows)}")
        st.table(
            [{**row, "question": literal(str(row["question"]))} for row in rows],
            hide_index=True,
        )
    with onward:
        st.markdown("**Where to go next**")
        for entry in end.next:
            st.page_link(entry.page, label=_TITLES[entry.page], icon=_ICONS[entry.page])
            st.caption(entry.why)
        export.export_section(steps, scenario)
        st.button("Reset the score", on_click=quiz.reset_score, key="lesson_reset")
