"""The sentences of "Why several heads?", each built from the numbers it states, and the
page's choices of what to show: which warnings and notes apply to the knobs, which
d_head the pictures mark, where the slicing numbers come from."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence

import numpy as np

from attention.experiments.equal_cost import LayoutCost
from attention.experiments.rank_limit import RankLimitResult
from attention.experiments.training.summary import SMOOTHING, LayoutFacts
from attention.experiments.two_targets import ONE_HEAD_FLOOR, TwoTargetResult
from attention.teaching.markdown import literal
from attention.teaching.narration.charts import numbered_heads, per_head_shares, quoted
from attention.wording import percent, plural

# The rank-limit section's choices as its select boxes (and so its links) word them.
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

TWO_TARGETS_MIN_TOKENS = 3  # a query and two targets


def scenario_caption(d_model: int, n_heads: int, d_head: int, n_tokens: int) -> str:
    """The page's lead: what it answers and the sidebar scenario its sections use."""
    return (
        "Five questions about multi-head attention, each answered by a computation that runs "
        f"here. Sections 1, 2, 3 and 5 use the sidebar's scenario: d_model = {d_model}, "
        f"{n_heads} {plural(n_heads, 'head')} of d_head = {d_head}, "
        f"{n_tokens} {plural(n_tokens, 'token')}."
    )


# §2 ---------------------------------------------------------------------------------
def same_vector_warning(token_a: str, token_b: str) -> str:
    """Why no head can tell the two targets apart."""
    return (
        f"'{literal(token_a)}' and '{literal(token_b)}' have the same vector here "
        "(turn on position vectors in the sidebar): no head can tell them apart."
    )


def two_target_fit_sentence(steps: int, d_heads: tuple[int, int]) -> str:
    """What §2 fitted: one head of d_heads[0], two heads of d_heads[1] each."""
    one, two = d_heads
    return (
        f"We fit W_Q and W_K by gradient descent ({steps} Adam {plural(steps, 'step')}) "
        f"for one head with d_head = {one}, and for two heads with d_head = "
        f"{two} each, where head 1 aims at the first target and head 2 at the second."
    )


def fetch_sentence(one: Sequence[float], two: Sequence[float]) -> str:
    """The weights on the two targets: one head's pair, then each of two heads' own target."""
    return (
        f"**One head** puts **{percent(one[0])}** of its weight on the first target and "
        f"**{percent(one[1])}** on the second.\n\n**Two heads**: head 1 puts "
        f"**{percent(two[0])}** on the first, head 2 **{percent(two[1])}** on the second."
    )


def fetch_caption(two: Sequence[float]) -> str:
    """What two heads achieve that one cannot, with their smaller fetch."""
    return (
        "One head can at best split its weight in half; here two heads each fetch their "
        f"token with at least {math.floor(100 * min(two))}% of their weight, for the same "
        "number of parameters."
    )


# §3 ---------------------------------------------------------------------------------
def rank_marks(today: int, n: int) -> dict[str, int]:
    """The d_head values the error curve marks: n, and the sidebar's d_head."""
    return {"d_head = n": n, f"today's d_head = {today}": today}


def shown_d_heads(today: int, n: int) -> list[int]:
    """The d_head values whose fitted patterns are drawn: 1, 2 and today's (at most n)."""
    return sorted({1, 2, min(today, n)})


def rank_limit_notes(today: int, n: int, d_model: int, penalty: float, kind: str) -> list[str]:
    """Notes the rank-limit chart needs for these knobs, each when its condition holds."""
    notes = []
    if today > n:
        notes.append(f"today's d_head = {today} is larger than n = {n}, so it is off the chart.")
    if d_model < n:
        notes.append(
            f"d_model = {d_model} < n: the token vectors themselves only span "
            f"{d_model} {plural(d_model, 'dimension')}, so no d_head above {d_model} can help."
        )
    if penalty == 0 and kind in ("permutation", "previous"):
        notes.append(
            "with no limit on the scores, even d_head = 2 can pick one key per query: "
            "put the keys on a circle and make the scores huge. Limit the score size to "
            "see the rank at work."
        )
    return notes


# §4 ---------------------------------------------------------------------------------
def task_description(marks: tuple[str, str], query: str) -> str:
    """The training task, with the task's own marks and query token."""
    return (
        f"Each sequence holds one token marked **{literal(marks[0])}** and one "
        f"marked **{literal(marks[1])}**; the model must answer both of their symbols "
        f"from the query token **{literal(query)}** at the end, so it needs two "
        "lookups at once. Token vectors are fixed random vectors (symbol + mark + position, "
        "plus fresh noise); one attention layer and a ReLU read-out learn, with forward and "
        "backward passes written by hand in NumPy. Four layouts train on the same batches "
        "from the same seed:"
    )


def noise_caption(marks: tuple[str, str]) -> str:
    """Why the task adds noise to the token vectors."""
    return (
        "About the noise: without it, one head can split its weight between "
        f"{literal(marks[0])} and {literal(marks[1])} and the "
        "read-out can still untangle the two symbols from tiny differences in the mix. Noise "
        "on the token vectors (in a real model they vary from sentence to sentence) blurs "
        "that mix: turn it down "
        "to 0 and train several seeds to see what one head manages then."
    )


def train_label(seed: int) -> str:
    """The button that trains the four layouts from one seed."""
    return f"Train the four variants (seed {seed})"


def seeds_label(seeds: Sequence[int]) -> str:
    """The button that trains several seeds, naming their range."""
    return f"Train seeds {seeds[0]}–{seeds[-1]} (same settings)"


def projection_answer(facts: dict[str, LayoutFacts], marks: tuple[str, str]) -> str:
    """The thread's question "is the projection to d_model/h essential?", answered from
    this training run: every claim chosen by the measured numbers."""
    one, split, full = facts["one"], facts["split"], facts["full"]

    def heads(layout: LayoutFacts) -> str:
        on_a, on_b = layout.heads_on
        diversity = "n/a" if layout.diversity is None else f"{layout.diversity:.2f} bits"
        return (
            f"accuracy **{layout.accuracy:.1%}**, heads mostly on "
            f"{literal(marks[0])} / {literal(marks[1])}: {on_a} / {on_b}, "
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


# §5 ---------------------------------------------------------------------------------
def slices_drawable(n_heads: int, d_model: int) -> bool:
    """Whether every head can have its own slice of at least one coordinate."""
    return n_heads <= d_model


def slice_cost_intro(seed: int, seeds_across: int | None) -> str:
    """Where §5's slicing numbers come from: several seeds when `seeds_across` is given,
    else the one seed trained."""
    source = f"§4's {seeds_across} seeds" if seeds_across else f"§4's seed {seed}"
    return f"What reading only a slice costs, from {source} (same steps, same batches):"


# The charts' text alternatives ------------------------------------------------------
RANK_TINY = 1e-6  # σ below this share of the largest counts as zero (the staircase's blanks)


def cost_summary(layouts: Sequence[LayoutCost], n_tokens: int) -> str:
    """The cost bars: each layout's parameters and multiply-adds at the sentence's length."""
    costs = "; ".join(
        f"{row.label}: {row.cost.params:,} parameters, {row.cost.macs:,} multiply-adds"
        for row in layouts
    )
    return f"Cost of each layout for n = {n_tokens} {plural(n_tokens, 'token')}: {costs}."


def cost_length_summary(
    table: Mapping[str, Mapping[str, np.ndarray]], lengths: Sequence[int], current: int
) -> str:
    """The cost-by-length lines: the lengths drawn and each layout's total and score
    multiply-adds at the sentence's own length."""
    at = list(lengths).index(current)
    costs = "; ".join(
        f"{label}: {parts['projection'][at] + parts['score'][at]:,} in total, "
        f"{parts['score'][at]:,} for the scores"
        for label, parts in table.items()
    )
    return (
        f"Multiply-adds against the sequence length n from {lengths[0]} to {lengths[-1]}, "
        f"log–log. At n = {current}: {costs}."
    )


def two_target_summary(tokens: Sequence[str], result: TwoTargetResult) -> str:
    """The two-target bars: what one head and each of two heads put on the targets."""
    (a, b), (one_a, one_b), (two_a, two_b) = (
        result.targets,
        result.one_head_fetch,
        result.two_heads_fetch,
    )
    return (
        f"Weights of the query {quoted(tokens[result.query])} over the {len(tokens)} "
        f"{plural(len(tokens), 'token')}: one head puts {percent(one_a)} on {quoted(tokens[a])} "
        f"and {percent(one_b)} on {quoted(tokens[b])}. Two heads: head 1 puts {percent(two_a)} on "
        f"{quoted(tokens[a])}, head 2 {percent(two_b)} on {quoted(tokens[b])}."
    )


def two_curves_summary(result: TwoTargetResult) -> str:
    """The fit's objective curves: where each ends, against one head's floor log 2."""
    steps = len(result.one_head_loss)
    return (
        f"The objective over {steps} {plural(steps, 'step')}: one head ends at "
        f"{result.one_head_loss[-1]:.3f}, two heads at {result.two_heads_loss[-1]:.3f}. "
        f"One head can never go below log 2 = {ONE_HEAD_FLOOR:.3f}."
    )


def rank_error_summary(result: RankLimitResult) -> str:
    """The rank-limit curve: the best error and misplaced attention at the smallest and
    the largest d_head fitted."""
    first, last = 0, len(result.d_heads) - 1
    ends = " and ".join(
        f"{result.error[i]:.3f} nats ({percent(result.misplaced[i])} of the attention misplaced) "
        f"at d_head = {result.d_heads[i]}"
        for i in dict.fromkeys((first, last))
    )
    return f"Best error of one head against d_head: {ends}."


def visible_ranks(singular_values: np.ndarray) -> np.ndarray:
    """Per fitted score matrix (rows of `singular_values`, largest σ first), how many σ
    are above RANK_TINY of the largest: the staircase's filled cells."""
    sv = np.asarray(singular_values)
    return (sv > RANK_TINY * sv[:, :1]).sum(axis=1)


def singular_value_summary(result: RankLimitResult) -> str:
    """The singular-value staircase: each fitted S's rank, per d_head."""
    ranks = ", ".join(
        f"{rank} at d_head = {d}"
        for d, rank in zip(result.d_heads, visible_ranks(result.singular_values), strict=True)
    )
    return (
        f"Singular values of each fitted score matrix; the number above 10⁻⁶ of the "
        f"largest (its rank): {ranks}."
    )


def rank_patterns_summary(result: RankLimitResult, d_heads: Sequence[int]) -> str:
    """The target beside the fitted patterns at `d_heads` (those fitted): how much of the
    target's attention each misplaces."""
    fitted = [d for d in dict.fromkeys(d_heads) if 1 <= d <= result.d_heads[-1]]
    misplaced = ", ".join(f"{percent(result.misplaced[d - 1])} at d_head = {d}" for d in fitted)
    n = len(result.target)
    return (
        f"The target pattern over {n} tokens beside one head's best fit at d_head = "
        f"{', '.join(map(str, fitted))}. Attention misplaced: {misplaced}."
    )


def loss_summary(losses: Mapping[str, np.ndarray]) -> str:
    """The training curves: where each variant's bold line (its loss averaged over the
    last SMOOTHING steps) ends."""
    steps = len(next(iter(losses.values())))
    tail = min(SMOOTHING, steps)
    ends = "; ".join(f"{label}: {curve[-tail:].mean():.3f}" for label, curve in losses.items())
    return (
        f"Training loss of each variant over {steps} {plural(steps, 'step')}. Mean over the "
        f"last {tail} {plural(tail, 'step')}: {ends}."
    )


def head_maps_summary(
    labels: Mapping[str, str], maps: Mapping[str, np.ndarray], tokens: Sequence[str]
) -> str:
    """The trained heads' weights for the query: each variant's heads' heaviest keys."""
    shares = "; ".join(
        f"{labels[key]} ({per_head_shares(tokens, weights, numbered_heads(len(weights)), top=1)})"
        for key, weights in maps.items()
    )
    return f"Each trained head's weights for the query on one held-out sequence: {shares}."


def seed_spread_summary(
    summary: Mapping[str, Mapping[str, np.ndarray]], labels: Mapping[str, str]
) -> str:
    """The seeds' accuracies: each variant's lowest and highest."""
    spans = "; ".join(
        f"{labels[key]}: {values['accuracy'].min():.1%} to {values['accuracy'].max():.1%}"
        for key, values in summary.items()
    )
    seeds = len(next(iter(summary.values()))["accuracy"])
    return f"Held-out accuracy of each variant for {seeds} seeds, lowest to highest: {spans}."


def slicing_summary(whole: np.ndarray, cut: np.ndarray, n_heads: int) -> str:
    """The W_Q matrices: how many weights are non-zero as W_Q is and if heads sliced."""
    rows, columns = np.shape(whole)
    total = rows * columns
    return (
        f"W_Q as one {rows} × {columns} matrix, {n_heads} {plural(n_heads, 'head')}: "
        f"{np.count_nonzero(whole):,} of its {total:,} weights are non-zero; slicing the "
        f"embedding would leave {np.count_nonzero(cut):,}."
    )


def slice_share_summary(shares: Mapping[str, np.ndarray]) -> str:
    """The own-slice shares: per W_Q, its heads' range beside reading evenly (1/h)."""
    ranges = "; ".join(
        f"{literal(name)}: {percent(np.min(share))} to {percent(np.max(share))}"
        for name, share in shares.items()
    )
    n_heads = len(next(iter(shares.values())))
    return (
        f"Share of each head's W_Q weight in its own slice, against 1/h = {percent(1 / n_heads)} "
        f"for reading evenly and 100% for slicing: {ranges}."
    )
