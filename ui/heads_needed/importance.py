"""Which heads matter: each head switched off alone on top of the switches, scored by the
sentence's cosine (at once) or by the paraphrase task (on request)."""

from __future__ import annotations

import numpy as np
import streamlit as st

from attention.analysis.head_masks import format_heads_off
from attention.analysis.heads_needed import SCORE_VIEWS
from attention.figures.heads_needed import importance_figure
from attention.figures.tables import head_score_rows
from attention.teaching.narration import heads_needed as narration
from ui.charts import show_chart
from ui.heads_needed import switches as hn
from ui.jobs import run_with_bar
from ui.media import narrow_screen
from view_state import url_params

_IMPORTANCE_ASKED = "_heads_importance_asked"  # masks whose task importance was asked for


def _ask(heads_off: str) -> None:
    """Button callback: remember in the session that this mask's task importance was
    asked for."""
    st.session_state.setdefault(_IMPORTANCE_ASKED, set()).add(heads_off)


def importance_section(text: str, mask: np.ndarray, roles: dict[str, np.ndarray]) -> None:
    """The importance of every head still on, its picture and what the top heads do."""
    heads_off = format_heads_off(mask)
    on_count = int(mask.sum())
    task = hn.paraphrase_task()
    st.header("Which heads matter?")
    score = st.segmented_control(
        "Importance by",
        url_params.options("heads_score"),
        default=url_params.default("heads_score"),
        format_func=lambda key: SCORE_VIEWS[key].label,
        key="heads_score",
        bind="query-params",
    ) or url_params.default("heads_score")
    view = SCORE_VIEWS[score]
    st.caption(
        "A head's importance: how much the score drops when that head alone is switched off, "
        "on top of the switches above (heads already off are blank)."
    )
    values = None
    if score == "cosine":  # fast: one sentence
        values = run_with_bar(
            f"Switching each of the {on_count} heads off in turn…",
            hn.importance,
            "cosine",
            text,
            heads_off,
        )
    else:
        st.button(
            f"Compute importance on the {len(task.triplets)} triplets",
            key="heads_importance_go",
            type="primary",
            on_click=_ask,
            args=(heads_off,),
        )
        if heads_off in st.session_state.get(_IMPORTANCE_ASKED, set()):
            values = run_with_bar(
                f"Switching each head off in turn on {len(task.texts)} sentences…",
                hn.importance,
                "accuracy",
                "",
                heads_off,
            )
        else:
            st.info(narration.importance_wait(len(task.texts)))
    if values is not None:
        on = mask > 0
        show_chart(
            importance_figure(
                values * view.scale, on, view.title, view.cell_format, cell_text=not narrow_screen()
            ),
            key="heads_importance",
            name=f"Importance of each head: {view.title}",
            summary=narration.importance_summary(values, on, view.title, view.value),
            table=head_score_rows(np.where(on, values * view.scale, np.nan), view.title),
        )
        st.markdown(narration.importance_sentence(values, on, roles, view.value))
        st.caption(
            "Each head's role (the share of attention it puts on the previous token, [CLS], …) "
            "is measured on your sentence with every head on, as on “Inside a real model”."
        )
