"""Each Lesson step's inputs, gathered from the cached data layer, and its own control:
the glue between the scenario and attention.teaching.lesson.steps. One function per step, in
lesson order; LESSON_STEPS pairs them with their words from assets/lesson.toml."""

from __future__ import annotations

import dataclasses

import numpy as np
import streamlit as st

from attention.analysis.by_hand import by_hand
from attention.analysis.feed_forward_look import look_at_feed_forward, pick_change, unit_words
from attention.analysis.gradient_flow import gradient_flow
from attention.analysis.head_roles import ROLES
from attention.analysis.rank_collapse import MAX_DEPTH
from attention.experiments.equal_cost import compare_layouts
from attention.experiments.slicing import own_slice_share, slicing_matrices
from attention.experiments.training.summary import layout_facts
from attention.experiments.training.task import TASK_TEXTS
from attention.experiments.training.train import TrainingConfig
from attention.figures.attention_maps import attention_grid, block_labels
from attention.figures.base.grid import PAGE_TITLE_CHARS, PHONE_TITLE_CHARS
from attention.figures.base.text import safe_label
from attention.figures.block import head_reads_figure
from attention.figures.block_rank_collapse import rank_collapse_figure
from attention.figures.head_spaces import (
    before_figure,
    neighbour_order_chart,
    query_key_value_figure,
)
from attention.figures.lesson import lecture_figure
from attention.figures.lesson_by_hand import arithmetic_figure, ingredients_figure
from attention.figures.lesson_feed_forward import feed_forward_figure
from attention.figures.lesson_translation import MapPanel, three_attentions_figure
from attention.figures.real_model import GRID_BLOCKS, head_grid_figure
from attention.figures.why_heads_cost import cost_bars
from attention.figures.why_heads_slicing import slicing_figure
from attention.figures.why_heads_two_targets import two_target_figure
from attention.geometry.head_spaces import neighbours
from attention.geometry.pooling import pool_attention
from attention.models.translation import EXAMPLES, choose_pronoun
from attention.models.translation.heads import WHO_IS_YOU, YOU_FROM_SOURCE, head_index
from attention.models.translation.pronoun import YOU_PRONOUNS
from attention.teaching.lecture_picture import QUERY, TARGETS, lecture_picture
from attention.teaching.lesson.content import lesson_text
from attention.teaching.lesson.steps import (
    StepView,
    after_heads_step,
    by_hand_step,
    cost_step,
    distances_step,
    feed_forward_step,
    lecture_step,
    looks_step,
    most_varied_layer,
    points_step,
    qkv_step,
    real_heads_step,
    residual_step,
    slicing_step,
    translation_step,
    two_targets_step,
)
from attention.teaching.narration import lesson as lesson_narration
from attention.teaching.playground import playground_from_fit
from shared_work.made_once import made_once_per_argument
from ui import data
from ui.block import data as block_data
from ui.cache_policy import PER_USER_TTL
from ui.lesson.presenter import PRESENTER_FONT_SCALE
from ui.lesson.step import Control, LessonStep
from ui.media import narrow_screen
from ui.playground import draw, keep_in_session, moved_heads
from ui.pretrained import minilm_reads, pretrained_model, run_real
from ui.translation import run_translation
from ui.why_heads import experiments as why_heads
from view_state.scenario import D_MODEL_CHOICES, Scenario, carry_focus

FEED_FORWARD_LAYER = 3  # a middle layer, whose strongest units often write towards words
CAUSAL_HEAD = "previous word"  # the decoder head shown: its mask and its one-back look
LESSON_TILE_PX = 300  # step 2: one head in two tiles across the page's width


def _toy(scenario: Scenario, **changes: object) -> Scenario:
    """The scenario on the toy source (the lesson's first steps use the sentence's own
    words), with a step's control applied."""
    focus = _same_word(scenario, "toy")
    return dataclasses.replace(scenario, source="toy", focus=focus, **changes)


def sentence_notices(scenario: Scenario) -> tuple[str, ...]:
    """What the Lesson says about the sentence, as every page does: the default stands in
    for an empty one, a long one is cut to the words the steps can show."""
    return data.run(_toy(scenario)).notices


def _setting(s: Scenario) -> str:
    """The caption's account of a toy computation: sentence, sizes and seed."""
    text = data.shown_text(s.text)
    sentence = text if len(text) <= 60 else text[:59] + "…"
    return (
        f"“{sentence}” · word vectors from MiniLM, random heads (seed {s.seed}) · "
        f"d_model {s.d_model} · {s.heads} heads of {s.resolved_d_head}"
    )


def _points_control(scenario: Scenario) -> Control:
    return Control("lesson_d_model", D_MODEL_CHOICES, scenario.d_model, sidebar="d_model")


def _points(scenario: Scenario, d_model: object) -> StepView:
    toy = _toy(scenario, d_model=int(d_model))
    run, spaces = data.run(toy), data.spaces(toy)
    figure = before_figure(spaces.before, run.tokens, toy.focus)
    return points_step(run.tokens, run.x, spaces.before, toy.focus, figure, _setting(toy))


def _qkv_control(scenario: Scenario) -> Control:
    """Starts on the first head whose focus query weights another token's key most (a
    head that looks at the token itself would answer the question by naming it)."""
    toy = _toy(scenario)
    favourites = data.run(toy).trace.weights[:, toy.focus].argmax(axis=-1)
    elsewhere = [h + 1 for h, key in enumerate(favourites.tolist()) if key != toy.focus]
    heads = tuple(range(1, len(favourites) + 1))
    return Control("lesson_head", heads, elsewhere[0] if elsewhere else 1)


def _qkv(scenario: Scenario, head: object) -> StepView:
    toy = _toy(scenario)
    run, spaces = data.run(toy), data.spaces(toy)
    h, phone = int(head) - 1, narrow_screen()
    figure = query_key_value_figure(
        spaces.heads[h],
        run.tokens,
        run.trace.weights[h],
        toy.focus,
        h,
        LESSON_TILE_PX,
        columns=1 if phone else 2,
        title_chars=PHONE_TITLE_CHARS if phone else PAGE_TITLE_CHARS,
    )
    return qkv_step(run.tokens, run.trace, h, toy.focus, figure, _setting(toy))


def _by_hand_control(scenario: Scenario) -> Control:
    """Starts on a head whose focus query weights another token's key most, and another
    than step 2's when there is one: the class predicts an answer it has not seen."""
    toy = _toy(scenario)
    favourites = data.run(toy).trace.weights[:, toy.focus].argmax(axis=-1)
    elsewhere = [h + 1 for h, key in enumerate(favourites.tolist()) if key != toy.focus]
    step_two = _qkv_control(scenario).default
    fresh = [h for h in elsewhere if h != step_two] or elsewhere or [1]
    return Control("lesson_hand_head", tuple(range(1, len(favourites) + 1)), fresh[0])


def _by_hand(scenario: Scenario, head: object) -> StepView:
    toy = _toy(scenario)
    run = data.run(toy)
    h, trace = int(head) - 1, run.trace
    hand = by_hand(trace.q[h, toy.focus], trace.k[h], trace.v[h])
    figures = (
        ingredients_figure(run.tokens, hand, toy.focus, h, columns=1 if narrow_screen() else 2),
        arithmetic_figure(run.tokens, hand, toy.focus, h),
    )
    return by_hand_step(run.tokens, hand, h, toy.focus, figures, _setting(toy))


def _same_word(scenario: Scenario, kind: str) -> int:
    """The sidebar's focus (on the sidebar source's tokens) as an index into the tokens
    `kind` makes of the same sentence: the same word stays in focus."""
    before = data.tokens(scenario.text, scenario.source, scenario.seed)
    after = data.tokens(scenario.text, kind, scenario.seed)
    return carry_focus(before.spans, scenario.focus, after.spans)


def _real_setting(text: str, what: str) -> str:
    sentence = text if len(text) <= 60 else text[:59] + "…"
    return f"“{sentence}” · {what}"


def _looks_control(scenario: Scenario) -> Control:
    attentions = run_real(data.shown_text(scenario.text)).trace.attentions
    varied = most_varied_layer(attentions, _same_word(scenario, "real"))
    layers = tuple(range(1, len(attentions) + 1))
    return Control("lesson_layer", layers, varied)


def _looks(scenario: Scenario, layer: object) -> StepView:
    real = dataclasses.replace(scenario, source="real", layer=int(layer))
    run = data.run(real)
    focus = _same_word(scenario, "real")
    rows = run.trace.weights[:, focus, :]
    names = [f"head {h + 1}" for h in range(rows.shape[0])]
    figure = attention_grid(
        rows[None],
        names,
        run.tokens,
        titles=[f"where layer {layer}'s heads look from “{safe_label(run.tokens[focus])}”"],
        columns=1,
        query_side="head",
        key_side="key token",
        head_colors=False,
        panel_px=420,
    )
    setting = _real_setting(data.shown_text(scenario.text), f"MiniLM layer {layer}, trained heads")
    return looks_step(run.tokens, rows, focus, int(layer), figure, setting)


def _two_targets_control(scenario: Scenario) -> Control:
    tokens = data.run(_toy(scenario)).tokens
    words = [i for i, t in enumerate(tokens) if any(c.isalnum() for c in t)] or [len(tokens) - 1]
    labels = tuple(range(len(tokens)))
    return Control("lesson_target", labels, words[-1], lambda i: f"{i} · {tokens[i]}")


def _two_targets(scenario: Scenario, target: object) -> StepView:
    toy = _toy(scenario)
    run = data.run(toy)
    a, b = 0, int(target)
    if a == b:
        a = 1 if len(run.tokens) > 1 else 0
    result = why_heads.two_targets(run.x, toy.focus, a, b, toy.seed)
    figure = two_target_figure(run.tokens, result, columns=1 if narrow_screen() else 2)
    return two_targets_step(
        run.tokens,
        toy.focus,
        (a, b),
        result.one_head_fetch,
        result.two_heads_fetch,
        toy.d_model,
        figure,
        _setting(toy),
    )


def _divisor_heads(d_model: int) -> tuple[int, ...]:
    return tuple(h for h in range(2, 17) if d_model % h == 0) or (1,)


def _cost_control(scenario: Scenario) -> Control:
    options = _divisor_heads(scenario.d_model)
    return Control("lesson_cost_heads", options, options[0], sidebar="heads")


def _cost(scenario: Scenario, heads: object) -> StepView:
    toy = _toy(scenario, heads=int(heads), d_head=0, full=False)
    n = len(data.run(toy).tokens)
    layouts = compare_layouts(toy.d_model, toy.heads, n)
    figure = cost_bars(layouts, n, upright=narrow_screen())
    rows = [(row.label, row.cost.params, row.cost.macs) for row in layouts]
    view = cost_step(rows, n, figure, _setting(toy))
    facts = {**view.facts, "d_model": toy.d_model, "d_head": layouts[0].d_head}
    return dataclasses.replace(view, facts=facts)


TRAINING_POLL_SECONDS = 1.0


def _trained_run(scenario: Scenario, revealed: bool) -> None:
    """Step 8's evidence: the three layouts of "Why several heads?" §4 trained on the
    two-lookup task (the same shared job and cache as that page, per seed). While it
    trains, a fragment polls its progress each second and the step stays usable; once
    it is done, the whole page reruns and the reveal states what the run measured."""
    config, seed = TrainingConfig(), scenario.seed
    status = why_heads.training_status(config, seed, wait=0.3)
    if status.comparison is None:
        st.fragment(_training_progress, run_every=TRAINING_POLL_SECONDS)(config, seed)
    elif revealed:
        facts = layout_facts(status.comparison)
        st.markdown(lesson_narration.trained_answer(facts, TASK_TEXTS.marks, seed))
    else:
        st.caption(lesson_narration.training_done(seed))


def _training_progress(config: TrainingConfig, seed: int) -> None:
    status = why_heads.training_status(config, seed)
    if status.comparison is not None:
        st.rerun()  # the step redraws with the result, and this fragment stops polling
    st.progress(status.done, text=lesson_narration.training_progress(status.done, seed))


def _slicing(scenario: Scenario, heads: object) -> StepView:
    toy = _toy(scenario, heads=int(heads), d_head=0, full=False)
    w_q = data.run(toy).mha.w_q
    # two panels side by side in the presenter's part of the screen, at its larger type;
    # one above the other on a phone
    phone = narrow_screen()
    chars = PHONE_TITLE_CHARS if phone else round(PAGE_TITLE_CHARS / PRESENTER_FONT_SCALE)
    figure = slicing_figure(
        *slicing_matrices(w_q), len(w_q), title_chars=chars, columns=1 if phone else 2
    )
    return slicing_step(own_slice_share(w_q), toy.d_model, figure, _setting(toy))


def _after_heads_control(scenario: Scenario) -> Control:
    layers = tuple(range(1, pretrained_model().config.layers + 1))
    return Control("lesson_ffn_layer", layers, 1)


def _after_heads(scenario: Scenario, layer: object) -> StepView:
    config = pretrained_model().config
    reads = minilm_reads(int(layer))
    figure = head_reads_figure(
        [(f"MiniLM layer {layer}: what each hidden unit reads", reads.shares)]
    )
    setting = f"MiniLM layer {layer}, trained weights (the sentence does not change them)"
    return after_heads_step(
        int(layer), config.heads, config.d_head, config.d_model, reads, figure, setting
    )


def _feed_forward_control(scenario: Scenario) -> Control:
    layers = tuple(range(1, pretrained_model().config.layers + 1))
    return Control("lesson_ffn_look_layer", layers, FEED_FORWARD_LAYER)


def _feed_forward(scenario: Scenario, layer: object) -> StepView:
    text = data.shown_text(scenario.text)
    model, trace = pretrained_model(), run_real(text).trace
    focus, index = _same_word(scenario, "real"), int(layer) - 1
    if focus in (0, len(trace.tokens) - 1):
        raise ValueError("its focus token is [CLS] or [SEP], not a word of the sentence.")
    x = trace.hidden_states[index]
    weights = trace.attentions[index].mean(axis=0)[focus]
    other, donor = pick_change(weights, x, focus, skip=(0, len(trace.tokens) - 1))
    block = model.block(index)
    look = look_at_feed_forward(block, x, focus, other, donor)
    words = unit_words(
        block.feed_forward.w_2, look.units, model.word_embeddings, model.tokenizer.token
    )
    figure = feed_forward_figure(trace.tokens, look, words, int(layer))
    setting = _real_setting(text, f"MiniLM layer {layer}, trained weights")
    return feed_forward_step(
        trace.tokens, int(layer), look, words, model.config.vocab_size, figure, setting
    )


def _residual_control(scenario: Scenario) -> Control:
    return Control("lesson_depth", tuple(range(1, MAX_DEPTH + 1)), MAX_DEPTH)


def _residual(scenario: Scenario, depth: object) -> StepView:
    toy = _toy(scenario)
    collapse = block_data.rank_collapse(toy, "pre")
    variants = (collapse.labels, collapse.residual, collapse.feed_forward, collapse.distances)
    curves = list(zip(*variants, strict=True))
    figure = rank_collapse_figure(curves, int(depth))
    setting = _setting(toy) + " · pre-LN stacks"
    run = data.run(toy)
    flow = gradient_flow(
        run.x, int(depth), run.mha.n_heads, run.mha.d_head, seed=toy.seed, temperature=toy.temp
    )
    return residual_step(
        list(collapse.labels), list(collapse.residual), collapse.distances, flow, figure, setting
    )


def _real_heads(scenario: Scenario, _: object) -> StepView:
    text = data.shown_text(scenario.text)
    real = run_real(text)
    layers, heads = real.trace.attentions.shape[:2]
    role = ROLES[0]
    figure = head_grid_figure(pool_attention(real.trace.attentions, GRID_BLOCKS), real.trace.tokens)
    setting = _real_setting(text, "MiniLM, all layers and heads as trained")
    return real_heads_step(
        len(real.trace.tokens), layers, heads, real.roles[role], role, figure, setting
    )


PRESENTER_LAYER_KEY = "lesson_present_layer"
PRESENTER_COLUMNS = 4  # a layer's 12 heads in 3 rows of 4: each map ≥ 80 px at 1280×720


def _real_heads_layer(scenario: Scenario) -> tuple[object, str]:
    """Presenter mode's step 14: one layer's heads at a time, large enough to read from
    the back of a room (the 72 maps together are ~30 px each), chosen with a slider
    that starts on layer 1; the quiz's heads are found by moving through the layers."""
    text = data.shown_text(scenario.text)
    real = run_real(text)
    pooled = pool_attention(real.trace.attentions, GRID_BLOCKS)
    layers, heads, m = pooled.shape[:3]
    layer = st.select_slider(
        "Show layer", tuple(range(1, layers + 1)), value=1, key=PRESENTER_LAYER_KEY
    )
    figure = attention_grid(
        pooled[layer - 1],
        block_labels(real.trace.tokens, m),
        titles=[f"head {h + 1}" for h in range(heads)],
        columns=PRESENTER_COLUMNS,
        query_side="queries",
        key_side="keys →",
    )
    # 13 token names beside a 100 px map overlap: the names are in the hover
    figure.update_xaxes(showticklabels=False).update_yaxes(showticklabels=False)
    return figure, _real_setting(text, f"MiniLM layer {layer} of {layers}, its {heads} heads")


def _lecture_control(scenario: Scenario) -> Control:
    return Control("lesson_fit_seed", tuple(range(10)), 0)


@st.cache_data(
    max_entries=10, ttl=PER_USER_TTL, show_spinner="Fitting the two heads (a fraction of a second)…"
)
def _lecture_fit(seed: int):
    return lecture_picture(seed)


def _lecture(scenario: Scenario, seed: object) -> StepView:
    fit = _lecture_fit(int(seed))
    tokens = list(fit.sentence.tokens)
    query = tokens.index(QUERY)
    targets = (tokens.index(TARGETS[0]), tokens.index(TARGETS[1]))
    figure = lecture_figure(
        tokens, fit.sentence.embeddings, fit.trace, query, columns=1 if narrow_screen() else 3
    )
    setting = f"“{fit.sentence.text}” · d_model 2 · 2 heads of 2 · weights fitted from seed {seed}"
    weights = fit.trace.weights[:, query]
    return lecture_step(
        fit.sentence.text, tokens, weights, query, targets, fit.description, figure, setting
    )


def _lecture_by_hand(seed: object) -> None:
    """After the reveal: the same fit's two heads to drag, as on the playground page but
    under the step's own key and kept in the session only."""
    playground = playground_from_fit(_lecture_fit(int(seed)))
    key = f"lesson_playground_{int(seed)}"
    st.subheader("Now move the query yourself")
    st.caption(
        f"The same two heads, fitted from seed {int(seed)}. Drag the query ● of “{QUERY}”, "
        "or Tab to it and use the arrow keys (Shift: bigger steps): each head's weights, "
        "output ★ and sentence follow at every frame. The picture above stays as the fit "
        "made it; the page “Move the query yourself” has challenges."
    )
    keys_draggable = st.toggle("Drag the keys too", key="lesson_pg_keys")
    draw(
        playground,
        moved_heads(key, playground),
        key=key,
        temperature=1.0,
        keys_draggable=keys_draggable,
        on_positions_change=keep_in_session(key, playground),
    )


def _distances(scenario: Scenario, _: object) -> StepView:
    toy = _toy(scenario)
    run = data.run(toy)
    near = neighbours(run.x, run.trace, toy.focus)
    figure = neighbour_order_chart(near.rank_corr, run.tokens[toy.focus])
    return distances_step(run.tokens, run.x, run.trace, toy.focus, figure, _setting(toy))


def _you_examples() -> tuple[int, ...]:
    """The examples whose English has a "you" for the cross-attention to read, and whose
    delivered features are shares (0 to 1): the question is about "you"."""
    shown = []
    for i, example in enumerate(EXAMPLES):
        choice = choose_pronoun(run_translation(example.english, example.german))
        if choice.has_you and all(0.0 <= v <= 1.0 for v in choice.delivered.values()):
            shown.append(i)
    return tuple(shown)


def _translation_control(scenario: Scenario) -> Control:
    labels = _you_examples()
    default = 1 if 1 in labels else labels[0]
    return Control("lesson_example", labels, default, lambda i: EXAMPLES[i].english)


def _translation(scenario: Scenario, index: object) -> StepView:
    example = EXAMPLES[int(index)]
    trace = run_translation(example.english, example.german)
    source, target = list(trace.source_tokens), list(trace.target_tokens)
    encoder = head_index("encoder", WHO_IS_YOU.name)
    decoder = head_index("decoder", CAUSAL_HEAD)
    cross = head_index("cross", YOU_FROM_SOURCE.name)
    you = trace.source_positions("2nd person")[0]
    allowed = np.broadcast_to(trace.decoder.sublayers[0].detail.mask, trace.decoder_weights.shape)
    panels = [
        MapPanel("self", trace.encoder_weights[encoder], source, source),
        MapPanel(
            "causal",
            trace.decoder_weights[decoder],
            target,
            target,
            allowed[decoder],
        ),
        MapPanel("cross", trace.cross_weights[cross], target, source),
    ]
    setting = f"“{example.english}” · hand-built encoder–decoder heads (not trained)"
    return translation_step(
        example.english,
        source,
        you,
        trace.encoder_weights[encoder],
        allowed[decoder],
        choose_pronoun(trace),
        tuple(w.text for w in YOU_PRONOUNS),
        three_attentions_figure(panels, one_per_row=narrow_screen()),
        setting,
    )


def _no_control(scenario: Scenario) -> None:
    return None


_STEPS = {
    "points": (_points_control, _points),
    "qkv": (_qkv_control, _qkv),
    "by_hand": (_by_hand_control, _by_hand),
    "lecture": (_lecture_control, _lecture),
    "looks": (_looks_control, _looks),
    "distances": (_no_control, _distances),
    "two_targets": (_two_targets_control, _two_targets),
    "cost": (_cost_control, _cost),
    "slicing": (_cost_control, _slicing),
    "after_heads": (_after_heads_control, _after_heads),
    "feed_forward": (_feed_forward_control, _feed_forward),
    "residual": (_residual_control, _residual),
    "translation": (_translation_control, _translation),
    "real_heads": (_no_control, _real_heads),
}
_BY_HAND = {"lecture": _lecture_by_hand}
_EVIDENCE = {"cost": _trained_run}
_PRESENTER = {"real_heads": _real_heads_layer}
# A step's control is the same for every session with the same scenario, and some take
# a model run to choose their default: made once per scenario, not at each rerun of each
# session (a class's Next reruns ~80 screens at once; the Lesson's Reset asks every step).
CONTROLS_KEPT = 64  # scenarios per step
LESSON_STEPS = [
    LessonStep(
        text,
        made_once_per_argument(CONTROLS_KEPT)(_STEPS[text.id][0]),
        _STEPS[text.id][1],
        by_hand=_BY_HAND.get(text.id),
        evidence=_EVIDENCE.get(text.id),
        presenter=_PRESENTER.get(text.id),
    )
    for text in lesson_text()
]
