"""Do we need all these heads? Switch MiniLM's heads off and watch the sentence embedding
and a paraphrase task, rank the heads by importance, prune them against random orders,
and follow attention through the layers with rollout."""

import numpy as np
import streamlit as st

from attention.analysis.head_masks import format_heads_off
from attention.analysis.heads_off import SCORE_VIEWS, focus_rows, rollout_contrast
from attention.analysis.rollout import attention_rollout
from attention.figures.base.grid import PAGE_TITLE_CHARS, PHONE_TITLE_CHARS
from attention.figures.heads_off import importance_figure, rollout_figure, switches_figure
from attention.figures.tables import head_score_rows, rollout_rows
from attention.teaching.markdown import literal
from attention.teaching.narration import heads_off as narration
from ui.charts import show_chart
from ui.heads_needed import switches as hn
from ui.heads_needed.pruning import pruning_section
from ui.heads_needed.switch_board import switch_board
from ui.jobs import run_with_progress
from ui.media import narrow_screen
from ui.pretrained import model_or_stop, run_real
from ui.sidebar import scenario_sidebar
from view_state import url_params

_IMPORTANCE_ASKED = "_heads_importance_asked"  # masks whose task importance was asked for


def _with_bar(title: str, function, *args):
    """`function(*args)` (cached, taking _progress(done, total)) with a progress bar."""
    bar = st.progress(0.0, text=title)
    result = run_with_progress(
        function, *args, on_progress=lambda done, total: bar.progress(done / total, text=title)
    )
    bar.empty()
    return result


def _ask(heads_off: str) -> None:
    """Button callback: remember in the session that this mask's task importance was
    asked for."""
    st.session_state.setdefault(_IMPORTANCE_ASKED, set()).add(heads_off)


scenario = scenario_sidebar(text_only=True)
st.title("Do we need all these heads?")
model = model_or_stop()
cfg = model.config
total = cfg.layers * cfg.heads
st.markdown(narration.intro_sentence(cfg.name, total))
try:
    result = run_real(scenario.text)
except ValueError as error:
    st.error(literal(str(error)))
    st.stop()
trace = result.trace
if trace.notice:
    st.warning(trace.notice)

# 1. The switches --------------------------------------------------------------------
mask = hn.current_mask()
if notice := hn.url_notice():
    st.warning(notice)
heads_off = format_heads_off(mask)
hn.write_url(mask)
switch_board(mask, cfg)

on_count = int(mask.sum())
numbers, picture = st.columns([2, 3])
numbers.markdown(narration.tokens_line(trace.tokens))
numbers.metric("Heads on", f"{on_count} of {total}")
cosine = hn.sentence_cosine(scenario.text, heads_off)
numbers.metric(
    "Cosine to the embedding with every head",
    f"{cosine:.4f}",
    help="The sentence embedding (mean of the last layer's token vectors, length 1) with "
    "these heads off against the one with every head on: 1 means nothing moved.",
)
task = hn.paraphrase_task()
with numbers:
    full = _with_bar("Paraphrase accuracy with every head…", hn.task_accuracy, "")
    accuracy = _with_bar("Paraphrase accuracy with these heads…", hn.task_accuracy, heads_off)
numbers.metric(
    f"Paraphrase accuracy ({len(task.triplets)} triplets)",
    f"{accuracy:.1%}",
    delta=narration.accuracy_change(accuracy, full),
    help="Share of triplets whose anchor sentence is nearer its paraphrase than its "
    "look-alike distractor (cosine of sentence embeddings).",
)
show_chart(
    switches_figure(mask),
    key="heads_switches",
    container=picture,
    name="Which heads are on, layer by layer",
    summary=narration.switches_summary(mask),
    table=head_score_rows(mask, "on (1) or off (0)"),
)

# 2. Importance ----------------------------------------------------------------------
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
    values = _with_bar(
        f"Switching each of the {on_count} heads off in turn…",
        hn.importance,
        "cosine",
        scenario.text,
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
        values = _with_bar(
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
    st.markdown(narration.importance_sentence(values, on, result.roles, view.value))
    st.caption(
        "Each head's role (the share of attention it puts on the previous token, [CLS], …) "
        "is measured on your sentence with every head on, as on “Inside a real model”."
    )

# 3. Pruning -------------------------------------------------------------------------
pruning_section(total)

# 4. Rollout -------------------------------------------------------------------------
st.header("Raw attention or rollout?")
focus = min(scenario.focus, len(trace.tokens) - 1)
rows = focus_rows(trace.attentions, attention_rollout(trace.attentions), focus)
st.caption(
    "Raw attention in a layer mixes vectors that earlier layers already mixed. Rollout "
    "(Abnar & Zuidema, 2020) follows the mixing from the input up: each layer as its "
    "head-mean attention plus the residual path (½ · A + ½ · I), multiplied layer by layer. "
    "Pick the token in the sidebar's focus box; every head on."
)
show_chart(
    rollout_figure(
        rows,
        trace.tokens,
        focus,
        PHONE_TITLE_CHARS if narrow_screen() else PAGE_TITLE_CHARS,
        cell_text=not narrow_screen(),
    ),
    key="heads_rollout",
    name="Raw attention and rollout of the focus token, layer by layer",
    summary=narration.rollout_sentence(
        rollout_contrast(rows, trace.tokens, focus), trace.tokens, focus, literal
    ),
    table=rollout_rows(rows, trace.tokens),
)
