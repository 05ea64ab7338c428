"""Why several heads? Five questions, each answered by something computed live: cost (§1),
one distribution per head (§2), the rank limit (§3), a model trained here (§4), and
whether heads slice the embedding (§5). One function per section; §4 hands what it
trained to §5."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd
import streamlit as st

from attention import MultiHeadAttention
from attention.experiments.equal_cost import compare_layouts, cost_by_length, lengths_around
from attention.experiments.rank_limit import PATTERNS, pattern_from_choices, target_pattern
from attention.experiments.slicing import own_slice_share
from attention.experiments.training.summary import layout_facts
from attention.experiments.training.task import TASK_TEXTS
from attention.experiments.training.train import Comparison, TrainingConfig, seed_summary
from attention.experiments.two_targets import same_vector
from attention.figures import tables
from attention.figures.base.grid import HALF_PAGE_TITLE_CHARS
from attention.figures.why_heads_cost import cost_bars, cost_by_length_chart
from attention.figures.why_heads_rank_limit import (
    rank_error_chart,
    rank_patterns,
    singular_value_chart,
)
from attention.figures.why_heads_slicing import slice_share_chart, slicing_figure
from attention.figures.why_heads_training import head_maps, loss_curves, seed_spread
from attention.figures.why_heads_two_targets import two_target_curves, two_target_figure
from attention.teaching.wording import plural
from ui import why_heads as exp
from ui.charts import show_chart
from ui.data import ScenarioRun
from ui.markdown import literal
from ui.scenario import Scenario
from ui.sidebar import scenario_run, scenario_sidebar

SCORE_LIMITS = {
    0.001: "moderate scores (penalty 10⁻³ · Σ S²)",
    0.0001: "large scores allowed (penalty 10⁻⁴)",
    0.0: "no limit on score size",
}
PATTERN_NAMES = {
    "permutation": "random permutation",
    "previous": "previous token",
    "soft": "random soft pattern",
    "drawn": "drawn by you",
}
SEEDS_ACROSS = 5
_REQUESTED = "why_trained"  # (settings, seed) pairs the user asked to train this session


# §1 ---------------------------------------------------------------------------------
def same_cost(mha: MultiHeadAttention, n_tokens: int) -> None:
    """§1: h small heads cost what one big head costs; only the distributions grow."""
    st.header("1. Same cost, more questions")
    st.markdown(
        "Splitting d_model into h heads of d_model/h keeps the parameter count and the work "
        "the same as one big head; what grows is the number of attention distributions each "
        "query gets."
    )
    st.latex(
        r"\begin{gathered}\text{params} = 4\,d_{\text{model}}\,(h\,d_{\text{head}})"
        r"\quad\text{scores: } h\,n^2 d_{\text{head}} \\"
        r"\xrightarrow{\;d_{\text{head}} = d_{\text{model}}/h\;}\quad"
        r"4\,d_{\text{model}}^2 \text{ and } n^2 d_{\text{model}}\text{ for every } h"
        r"\end{gathered}"
    )
    try:
        layouts = compare_layouts(mha.d_model, mha.n_heads, n_tokens, bias=mha.bias)
    except ValueError as error:
        st.warning(f"No cost table for these knobs: {error}")
        return
    rows = tables.cost_table(layouts)
    numbers = {name: st.column_config.NumberColumn(format="localized") for name in rows[0]}
    del numbers["layout"]
    st.dataframe(pd.DataFrame(rows), hide_index=True, column_config=numbers, key="wh_cost_table")
    lengths = lengths_around(n_tokens)
    left, right = st.columns(2)
    with left:
        show_chart(cost_bars(layouts, n_tokens, HALF_PAGE_TITLE_CHARS), "wh_cost_bars")
    with right:
        table = cost_by_length(mha.d_model, mha.n_heads, lengths, bias=mha.bias)
        show_chart(cost_by_length_chart(table, lengths, n_tokens), "wh_cost_length")
    st.caption(
        "MACs = multiply-adds. The score part (hatched) is the same for h heads × "
        "d_model/h and for one head × d_model (their lines lie on top of each other), and "
        "h times larger for h full-size heads; only the softmax exponentials (h·n²) grow "
        "with h."
    )


# §2 ---------------------------------------------------------------------------------
@st.fragment
def one_distribution_per_head(scenario: Scenario, run: ScenarioRun) -> None:
    """§2: one head splits its weight between two targets; two heads fetch both."""
    tokens = run.tokens
    st.header("2. One distribution per head")
    st.markdown(
        "A head gives each query **one** probability distribution over the keys, so its "
        "output is a weighted average of the values. Weight spent on one target is "
        "missing from the other:"
    )
    st.latex(
        r"\begin{gathered}o = \sum_j w_j v_j,\quad \sum_j w_j = 1 \;\Rightarrow\;"
        r" w_a + w_b \le 1 \\ \Rightarrow\; -\tfrac12(\log w_a + \log w_b) \ge \log 2"
        r"\end{gathered}"
    )
    n = len(tokens)
    if n < 3:
        st.info("Type a sentence with at least three tokens to pick a query and two targets.")
        return
    names = [f"{i} · {t}" for i, t in enumerate(tokens)]
    cols = st.columns(3)
    query = cols[0].selectbox(
        "Query token",
        range(n),
        index=scenario.focus,
        format_func=names.__getitem__,
        key="wh_query",
        bind="query-params",
    )
    a = cols[1].selectbox(
        "First target",
        range(n),
        index=0,
        format_func=names.__getitem__,
        key="wh_target_a",
        bind="query-params",
    )
    b = cols[2].selectbox(
        "Second target",
        range(n),
        index=n - 1,
        format_func=names.__getitem__,
        key="wh_target_b",
        bind="query-params",
    )
    if a == b:
        st.warning("Pick two different target tokens.")
        return
    if same_vector(run.x, a, b):
        st.warning(
            f"'{literal(tokens[a])}' and '{literal(tokens[b])}' have the same vector here "
            "(turn on position vectors in the sidebar): no head can tell them apart."
        )
    result = exp.two_targets(run.x, query, a, b, scenario.seed)
    one_d_head, two_d_head = result.d_heads
    st.markdown(
        f"We fit W_Q and W_K by gradient descent ({len(result.one_head_loss)} Adam steps) "
        f"for one head with d_head = {one_d_head}, and for two heads with d_head = "
        f"{two_d_head} each, where head 1 aims at the first target and head 2 at the second."
    )
    show_chart(two_target_figure(tokens, result), "wh_two_targets")
    left, right = st.columns([3, 2])
    with left:
        show_chart(two_target_curves(result), "wh_two_curves")
    with right:
        one, two = result.one_head_fetch, result.two_heads_fetch
        st.markdown(
            f"**One head** puts **{one[0]:.0%}** of its weight on the first target and "
            f"**{one[1]:.0%}** on the second.\n\n**Two heads**: head 1 puts **{two[0]:.0%}** "
            f"on the first, head 2 **{two[1]:.0%}** on the second."
        )
        st.caption(
            "One head can at best split its weight in half; here two heads each fetch their "
            f"token with at least {min(two):.0%} of their weight, for the same number of "
            "parameters."
        )


# §3 ---------------------------------------------------------------------------------
def drawn_pattern(n: int) -> np.ndarray | None:
    """Let the user tick, per query row, the keys it should attend to."""
    default = tables.pattern_checkboxes(target_pattern("previous", n))
    grid = st.data_editor(default, key=f"wh_drawn_{n}", width="content")
    try:
        return pattern_from_choices(grid.to_numpy(dtype=bool))
    except ValueError as error:
        st.warning(f"Cannot use this pattern: {error}")
        return None


@st.fragment
def rank_limit(seed: int, mha: MultiHeadAttention) -> None:
    """§3: the best fit of one head to a pattern, for every d_head from 1 to n."""
    st.header("3. The rank limit of a head")
    st.markdown(
        "A head's score matrix is a product through d_head dimensions, so its rank is at "
        "most d_head; softmax then only subtracts one number per row (Bhojanapalli et "
        "al., 2020). We fit one head's W_Q, W_K to a target pattern over n tokens for "
        "every d_head from 1 to n and keep the best of two starts."
    )
    st.latex(
        r"\begin{gathered}S = \frac{X W_Q W_K^{\top} X^{\top}}{\sqrt{d_{\text{head}}}},\quad"
        r"\operatorname{rank} S \le \min(d_{\text{head}}, d_{\text{model}}) \\"
        r"\log A = S - c\,\mathbf 1^{\top}\end{gathered}"
    )
    cols = st.columns([2, 1, 2])
    kinds = {**PATTERNS, "drawn": "drawn by you: tick the keys each query attends to"}
    kind = cols[0].selectbox(
        "Target pattern",
        list(kinds),
        format_func=PATTERN_NAMES.get,
        key="wh_pattern",
        bind="query-params",
    )
    n = cols[1].slider("Tokens n", 2, 16, 8, key="wh_rank_n", bind="query-params")
    penalty = cols[2].selectbox(
        "Score size",
        list(SCORE_LIMITS),
        format_func=SCORE_LIMITS.get,
        key="wh_penalty",
        bind="query-params",
    )
    st.caption(f"Target: {kinds[kind]}.")
    if kind == "drawn":
        target = drawn_pattern(n)
        if target is None:
            return
    else:
        target = target_pattern(kind, n, seed=seed)
    with st.spinner("Fitting one head for every d_head …"):
        result = exp.rank_limit(target, mha.d_model, penalty, seed)
    today = mha.d_head
    marks = {"d_head = n": n, f"today's d_head = {today}": today}
    left, right = st.columns([3, 2])
    with left:
        show_chart(rank_error_chart(result, marks), "wh_rank_error")
    with right:
        show_chart(singular_value_chart(result), "wh_rank_sv")
    notes = []
    if today > n:
        notes.append(f"today's d_head = {today} is larger than n = {n}, so it is off the chart.")
    if mha.d_model < n:
        notes.append(
            f"d_model = {mha.d_model} < n: the token vectors themselves only span "
            f"{mha.d_model} dimensions, so no d_head above {mha.d_model} can help."
        )
    if penalty == 0 and kind in ("permutation", "previous"):
        notes.append(
            "with no limit on the scores, even d_head = 2 can pick one key per query: "
            "put the keys on a circle and make the scores huge. Limit the score size to "
            "see the rank at work."
        )
    for note in notes:
        st.caption("Note: " + note)
    st.caption(
        "Singular values of each fitted S (right): blank cells are zero, so the staircase "
        "is the rank limit. Below: the target and the fitted patterns at a few d_head."
    )
    show_chart(rank_patterns(result, sorted({1, 2, min(today, n)})), "wh_rank_patterns")


# §4 ---------------------------------------------------------------------------------
@dataclass(frozen=True)
class Trained:
    """What §4 trained, for §5: one seed's four variants, and the summary across seeds
    once those are trained too."""

    seed: int
    labels: dict[str, str]  # variant key → label
    comparison: Comparison
    summary: dict[str, dict[str, np.ndarray]] | None


def train_live(config: TrainingConfig, seed: int, title: str) -> Comparison:
    """Train (or fetch) one seed with a progress bar and live loss curves."""
    total = config.steps * len(config.variants())
    bar = st.progress(0.0, text=title)
    live = st.empty()
    losses_so_far: dict[str, np.ndarray] = {}

    def show(label: str, done: int, losses: np.ndarray) -> None:
        losses_so_far[label] = losses
        finished = sum(len(c) for c in losses_so_far.values())
        bar.progress(finished / total, text=f"{title}: {label}, step {done} of {config.steps}")
        show_chart(loss_curves(losses_so_far, config.steps), key=None, container=live)

    comparison = exp.train(config, seed, show)
    bar.empty()
    live.empty()
    return comparison


def projection_answer(facts: dict) -> str:
    """The thread's question "is the projection to d_model/h essential?", answered from
    this training run: every claim chosen by the measured numbers."""
    one, split, full = facts["one"], facts["split"], facts["full"]

    def heads(layout) -> str:
        on_a, on_b = layout.heads_on
        diversity = "n/a" if layout.diversity is None else f"{layout.diversity:.2f} bits"
        return (
            f"accuracy **{layout.accuracy:.1%}**, heads mostly on "
            f"{literal(TASK_TEXTS.marks[0])} / {literal(TASK_TEXTS.marks[1])}: {on_a} / {on_b}, "
            f"diversity {diversity}"
        )

    if full.split_between_lookups:
        verdict = (
            "The full-size heads divided the two lookups between them too: in this run "
            "it is having several heads, not projecting to a smaller space, that lets them "
            "specialise."
        )
    else:
        verdict = "In this run the full-size heads did not divide the two lookups between them."
    return (
        f"**Is the projection to d_model/h essential?** {literal(split.label)}: {heads(split)}. "
        f"{literal(full.label)}: {heads(full)}. {verdict} What the split buys is cost: "
        f"{literal(split.label)} has {split.parameters:,} attention parameters, "
        f"{'the same as' if split.parameters == one.parameters else 'against'} "
        f"{literal(one.label)} ({one.parameters:,}), but gives every query one distribution "
        f"per head; full-size heads need {full.parameters:,} "
        f"(×{full.parameters / split.parameters:.1f})."
    )


def train_and_compare(seed: int) -> Trained | None:
    """§4: four layouts trained on the same batches; None until the user trains them."""
    st.header("4. Train a small model and watch heads specialise")
    st.markdown(
        f"Each sequence holds one token marked **{literal(TASK_TEXTS.marks[0])}** and one "
        f"marked **{literal(TASK_TEXTS.marks[1])}**; the model must answer both of their symbols "
        f"from the query token **{literal(TASK_TEXTS.query)}** at the end, so it needs two "
        "lookups at once. Token vectors are fixed random vectors (symbol + mark + position, "
        "plus fresh noise); one attention layer and a ReLU read-out learn, with forward and "
        "backward passes written by hand in NumPy. Four layouts train on the same batches "
        "from the same seed:"
    )
    st.latex(
        r"\begin{gathered}\text{(a) } 1\times d \quad \text{(b) } h \times \tfrac{d}{h} \quad"
        r"\text{(c) } h \times d \\ \text{(d) } h \times \tfrac{d}{h}"
        r"\text{, head } i \text{ reads only } x_{[i d/h,\,(i+1) d/h)}\end{gathered}"
    )
    st.caption(
        "About the noise: without it, one head can split its weight between "
        f"{literal(TASK_TEXTS.marks[0])} and {literal(TASK_TEXTS.marks[1])} and the "
        "read-out can still untangle the two symbols from tiny differences in the mix. Noise "
        "on the token vectors (in a real model they vary from sentence to sentence) blurs "
        "that mix: turn it down "
        "to 0 and train several seeds to see what one head manages then."
    )
    default = TrainingConfig()
    cols = st.columns(6)
    d_model = cols[0].select_slider(
        "d_model", [16, 32, 64], value=default.d_model, key="wh_d_model", bind="query-params"
    )
    heads = cols[1].select_slider(
        "heads h", [2, 4, 8], value=default.n_heads, key="wh_heads", bind="query-params"
    )
    symbols = cols[2].slider(
        "symbols", 2, 16, default.n_symbols, key="wh_symbols", bind="query-params"
    )
    seq_len = cols[3].slider(
        f"tokens before {TASK_TEXTS.query}",
        3,
        16,
        default.seq_len,
        key="wh_seq_len",
        bind="query-params",
    )
    noise = cols[4].slider(
        "noise",
        0.0,
        1.5,
        default.noise,
        step=0.1,
        key="wh_noise",
        bind="query-params",
        help="Std of fresh Gaussian noise added to every coordinate of every token vector.",
    )
    steps = cols[5].select_slider(
        "steps",
        [300, 600, 1000, 1500, 2000, 3000],
        value=default.steps,
        key="wh_steps",
        bind="query-params",
    )
    config = TrainingConfig(
        d_model=d_model, n_heads=heads, n_symbols=symbols, seq_len=seq_len, noise=noise, steps=steps
    )
    labels = {v.key: v.label for v in config.variants()}
    requested: set = st.session_state.setdefault(_REQUESTED, set())
    key = (exp.settings_of(config), seed)
    # The click is recorded in a callback, which runs before the script and so survives
    # any rerun the script makes on the way.
    st.button(
        f"Train the four variants (seed {seed})",
        key="wh_train",
        type="primary",
        on_click=requested.add,
        args=(key,),
    )

    if key not in requested:
        st.info(
            "Press the button to train: it takes seconds, and a progress bar shows the live loss."
        )
        return None
    comparison = train_live(config, seed, f"Training seed {seed}")
    losses = {labels[k]: r.losses for k, r in comparison.results.items()}
    show_chart(loss_curves(losses, config.steps), "wh_loss")
    st.dataframe(
        pd.DataFrame(tables.comparison_table(comparison)), hide_index=True, key="wh_results"
    )
    st.caption(
        "Head diversity: the mean Jensen–Shannon divergence between the query's weights "
        "in every pair of heads, over 2000 held-out sequences (0 = all heads look at the "
        "same tokens, 1 = no overlap). Times are wall clock on this server."
    )
    st.markdown(projection_answer(layout_facts(comparison)))
    show_chart(head_maps(comparison), "wh_head_maps")
    st.caption(
        f"Each trained head's weights for the query {literal(TASK_TEXTS.query)} on one "
        "held-out sequence."
    )

    st.subheader(f"Across {SEEDS_ACROSS} seeds")
    seeds = list(range(seed, seed + SEEDS_ACROSS))
    across = (exp.settings_of(config), tuple(seeds))
    st.button(
        f"Train seeds {seeds[0]}–{seeds[-1]} (same settings)",
        key="wh_seeds",
        on_click=requested.add,
        args=(across,),
    )
    if across not in requested:
        st.caption("One seed can be lucky or unlucky: train five to see the spread.")
        return Trained(seed, labels, comparison, None)
    summary = seed_summary([train_live(config, s, f"Seed {s}") for s in seeds])
    st.dataframe(
        pd.DataFrame(tables.seed_table(summary, labels)), hide_index=True, key="wh_seed_table"
    )
    show_chart(seed_spread(summary, labels, seeds, config.n_symbols), "wh_seed_spread")
    return Trained(seed, labels, comparison, summary)


# §5 ---------------------------------------------------------------------------------
def heads_read_the_whole_vector(mha: MultiHeadAttention, trained: Trained | None) -> None:
    """§5: every head's W_Q has a row for every coordinate; what slicing would cost."""
    st.header("5. Heads read the whole vector")
    st.markdown(
        "A common picture is that head i reads its own slice of the embedding. It does not: "
        "W_Q (like W_K and W_V) has a row for every input coordinate in every head's block "
        "of columns, so each head projects the **whole** vector."
    )
    st.latex(
        r"\begin{gathered}q^{(i)} = x\,W_Q^{(i)} = \sum_{j=1}^{d_{\text{model}}} x_j\,"
        r" W_Q^{(i)}[j,:] \\ \text{slicing would zero every row } j \notin \text{slice } i"
        r"\end{gathered}"
    )
    if mha.n_heads > mha.d_model:
        st.warning("With more heads than d_model coordinates there are no slices to draw.")
    else:
        # Full width, but its two panels are narrower than half the page each (the axis
        # labels and colour bar take the rest): half the page's title characters fit them.
        show_chart(slicing_figure(mha.w_q, HALF_PAGE_TITLE_CHARS), "wh_slicing")
        shares = {"W_Q of the sidebar's heads": mha.w_q}
        if trained is not None:
            split = trained.comparison.results["split"].model.attention.w_q
            shares["W_Q of §4's trained (b) heads"] = split
        shares = {name: own_slice_share(w_q) for name, w_q in shares.items()}
        show_chart(slice_share_chart(shares), "wh_slice_share")
    if trained is None:
        st.caption("Train the variants in §4 to see what reading only a slice costs.")
        return
    if trained.summary is not None:
        rows = tables.seed_table(trained.summary, trained.labels)
        source = f"§4's {SEEDS_ACROSS} seeds"
    else:
        rows = tables.comparison_table(trained.comparison)
        source = f"§4's seed {trained.seed}"
    st.markdown(f"What reading only a slice costs, from {source} (same steps, same batches):")
    st.dataframe(
        pd.DataFrame(tables.slice_rows(rows, trained.labels)),
        hide_index=True,
        key="wh_slice_numbers",
    )


scenario = scenario_sidebar()
run = scenario_run(scenario)
st.title("Why several heads?")
st.caption(
    "Five questions about multi-head attention, each answered by a computation that runs "
    f"here. Sections 1, 2, 3 and 5 use the sidebar's scenario: d_model = {run.mha.d_model}, "
    f"{run.mha.n_heads} {plural(run.mha.n_heads, 'head')} of d_head = {run.mha.d_head}, "
    f"{len(run.tokens)} {plural(len(run.tokens), 'token')}."
)
same_cost(run.mha, len(run.tokens))
one_distribution_per_head(scenario, run)
rank_limit(scenario.seed, run.mha)
heads_read_the_whole_vector(run.mha, train_and_compare(scenario.seed))
