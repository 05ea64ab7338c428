"""Do we need all these heads? Switch MiniLM's heads off and watch the sentence embedding
and a paraphrase task, rank the heads by importance, prune them against random orders,
and follow attention through the layers with rollout."""

import streamlit as st

from attention.analysis.head_masks import format_heads_off
from attention.analysis.heads_off import (
    PRUNING_MEASURE_EVERY,
    PRUNING_RESCORE_EVERY,
    PRUNING_SEEDS,
    SCORE_VIEWS,
    focus_rows,
    rollout_contrast,
    summarise_pruning,
)
from attention.analysis.pruning import curve_band
from attention.analysis.rollout import attention_rollout
from attention.figures.heads_off import (
    importance_figure,
    pruning_figure,
    rollout_figure,
    switches_figure,
)
from attention.teaching.narration.heads_off import (
    importance_sentence,
    pruning_sentence,
    rollout_sentence,
)
from ui import head_switches as hn
from ui.charts import show_chart
from ui.jobs import run_with_progress
from ui.markdown import literal
from ui.real_model import model_or_stop, run_real
from ui.sidebar import scenario_sidebar

DROP = 0.05  # "before accuracy drops by 5 points"
_IMPORTANCE_ASKED = "_heads_importance_asked"  # masks whose task importance was asked for
_PRUNING_ASKED = "_heads_pruning_asked"


def _with_bar(title: str, function, *args):
    """`function(*args)` (cached, taking _progress(done, total)) with a progress bar."""
    bar = st.progress(0.0, text=title)
    result = run_with_progress(
        function, *args, on_progress=lambda done, total: bar.progress(done / total, text=title)
    )
    bar.empty()
    return result


def _ask(key: str, value: object) -> None:
    """Button callback: remember in the session that `value` was asked for."""
    st.session_state.setdefault(key, set()).add(value)


scenario = scenario_sidebar(text_only=True)
st.title("Do we need all these heads?")
model = model_or_stop()
cfg = model.config
total = cfg.layers * cfg.heads
st.markdown(
    f"{cfg.name} has {total} heads. Michel et al. (2019, “Are Sixteen Heads Really Better "
    "than One?”) found that many heads of a trained model can be switched off at test time "
    "with little loss, and a few cannot. Try it: a head switched off here adds nothing "
    "(its weighted sum of values becomes zeros before W_O); everything else runs as trained."
)
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
st.header("Switch heads off")
st.caption(
    "Each row is a layer; a highlighted number is a head that is on. Click to switch a "
    "head off or on. The address bar keeps the switches, so the link reopens them."
)
hn.prepare_pills(mask)
for layer in range(1, cfg.layers + 1):
    name, switches = st.columns([1, 11], vertical_alignment="center")
    name.markdown(f"**Layer {layer}**")
    switches.pills(
        f"Heads on in layer {layer}",
        list(range(1, cfg.heads + 1)),
        selection_mode="multi",
        key=hn.PILLS.format(layer),
        on_change=hn.read_pills,
        label_visibility="collapsed",
    )
pick_layer, layer_button, pick_head, head_button, reset_button = st.columns(
    [1, 1.4, 1, 2.2, 1.4], vertical_alignment="bottom"
)
layer_k = pick_layer.selectbox("Layer", range(1, cfg.layers + 1), key="heads_pick_layer")
layer_button.button(
    f"Switch layer {layer_k} off", key="heads_layer_off", on_click=hn.switch_layer_off,
    args=(layer_k,),
)  # fmt: skip
head_k = pick_head.selectbox("Head", range(1, cfg.heads + 1), key="heads_pick_head")
head_button.button(
    f"Keep only head {head_k} of every layer", key="heads_only", on_click=hn.keep_only_head,
    args=(head_k,),
)  # fmt: skip
reset_button.button("Every head on", key="heads_reset", on_click=hn.reset)

on_count = int(mask.sum())
numbers, picture = st.columns([2, 3])
numbers.markdown(
    f"**{len(trace.tokens)} tokens** of your sentence: " + literal(" · ".join(trace.tokens))
)
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
    delta=f"{(accuracy - full) * 100:+.1f} points" if accuracy != full else None,
    help="Share of triplets whose anchor sentence is nearer its paraphrase than its "
    "look-alike distractor (cosine of sentence embeddings).",
)
show_chart(switches_figure(mask), key="heads_switches", container=picture)

# 2. Importance ----------------------------------------------------------------------
st.header("Which heads matter?")
score = (
    st.segmented_control(
        "Importance by",
        list(SCORE_VIEWS),
        default="cosine",
        format_func=lambda key: SCORE_VIEWS[key].label,
        key="heads_score",
        bind="query-params",
    )
    or "cosine"
)
view = SCORE_VIEWS[score]
st.caption(
    "A head's importance: how much the score drops when that head alone is switched off, "
    "on top of the switches above (heads already off are blank)."
)
values = None
if score == "cosine":
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
        args=(_IMPORTANCE_ASKED, heads_off),
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
        st.info(
            f"This runs the task's {len(task.texts)} sentences once per head that is on; "
            "it takes a while, so it waits for the button (the result is kept per set "
            "of switches)."
        )
if values is not None:
    on = mask > 0
    show_chart(
        importance_figure(values * view.scale, on, view.title, view.cell_format),
        key="heads_importance",
    )
    st.markdown(importance_sentence(values, on, result.roles, view.value))
    st.caption(
        "Each head's role (the share of attention it puts on the previous token, [CLS], …) "
        "is measured on your sentence with every head on, as on “Inside a real model”."
    )

# 3. Pruning -------------------------------------------------------------------------
st.header("Pruning: how many heads can go?")
st.caption(
    "Switch heads off one after another, least important first (importance on the "
    f"paraphrase task, measured again every {PRUNING_RESCORE_EVERY} heads), down to one "
    f"head per layer; the grey band spans {len(PRUNING_SEEDS)} random orders. Every curve "
    f"is measured every {PRUNING_MEASURE_EVERY} heads. Computed once per server (a few "
    "minutes: the task's sentences run again for every point), with every head on at "
    "the start (the switches above do not change it)."
)
st.button(
    "Compute the pruning curves",
    key="heads_pruning_go",
    type="primary",
    on_click=_ask,
    args=(_PRUNING_ASKED, PRUNING_SEEDS),
)
if PRUNING_SEEDS in st.session_state.get(_PRUNING_ASKED, set()):
    bar = st.progress(0.0)
    stages = ("least important first", "random orders")

    def _show(stage: int, done: int, total: int) -> None:
        bar.progress(done / total, text=f"Pruning, {stages[stage]} ({stage + 1} of 2)…")

    curve, random_curves = run_with_progress(
        hn.pruning_curves,
        PRUNING_RESCORE_EVERY,
        PRUNING_SEEDS,
        PRUNING_MEASURE_EVERY,
        on_progress=_show,
    )
    bar.empty()
    summary = summarise_pruning(curve, random_curves, total, DROP)
    show_chart(
        pruning_figure(
            curve, curve_band(random_curves), len(random_curves), summary.by_importance, DROP
        ),
        key="heads_pruning",
    )
    st.markdown(pruning_sentence(summary))
else:
    st.info(
        "Pruning runs the task again for every head it ranks and every point it measures: "
        "it waits for the button."
    )

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
show_chart(rollout_figure(rows, trace.tokens, focus), key="heads_rollout")
st.markdown(
    rollout_sentence(rollout_contrast(rows, trace.tokens, focus), trace.tokens, focus, literal)
)
