"""The sentences of "Why several heads?", each built from the numbers it states, and the
page's choices of what to show: which warnings and notes apply to the knobs, which
d_head the pictures mark, where the slicing numbers come from."""

from __future__ import annotations

from collections.abc import Sequence

from attention.experiments.training.summary import LayoutFacts
from attention.teaching.markdown import literal
from attention.teaching.wording import plural

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
        f"**One head** puts **{one[0]:.0%}** of its weight on the first target and "
        f"**{one[1]:.0%}** on the second.\n\n**Two heads**: head 1 puts **{two[0]:.0%}** "
        f"on the first, head 2 **{two[1]:.0%}** on the second."
    )


def fetch_caption(two: Sequence[float]) -> str:
    """What two heads achieve that one cannot, with their smaller fetch."""
    return (
        "One head can at best split its weight in half; here two heads each fetch their "
        f"token with at least {min(two):.0%} of their weight, for the same number of "
        "parameters."
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
