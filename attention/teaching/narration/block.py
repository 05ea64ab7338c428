"""The sentences of "The block around attention", each built from the numbers it states:
the block's shapes and update sizes (§1), the rank-collapse stacks (§2) and the
hand-built translation example (§3)."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from attention.analysis.ffn_reads import BlockReads
from attention.analysis.rank_collapse import FLOAT64_LEVEL, MAX_DEPTH, depth_reaching, log_growth
from attention.analysis.update_ratios import SMALL_NUDGE, nudge_sizes
from attention.models.pretrained.model import SUBLAYERS
from attention.teaching.markdown import literal
from attention.wording import percent, plural, power_of_ten

# Radio label (also the URL value) → (the library's norm, a caption).
LAYER_NORMS = {
    "post-LN": ("post", "2017 paper, BERT"),
    "pre-LN": ("pre", "GPT-2 and most models since"),
    "no LN": ("none", "Dong et al.'s pure attention"),
}


# §1 ---------------------------------------------------------------------------------
def block_equations(norm: str) -> str:
    """LaTeX of the block's two residual updates with the LayerNorm where `norm` puts it
    ("post": after the sum; otherwise before the sublayer)."""
    if norm == "post":
        return (
            r"{x \leftarrow \mathrm{LN}\big(x + \mathrm{MultiHead}(x)\big),} \qquad\allowbreak "
            r"{x \leftarrow \mathrm{LN}\big(x + \mathrm{FFN}(x)\big)}"
        )
    return (
        r"{x \leftarrow x + \mathrm{MultiHead}\big(\mathrm{LN}(x)\big),} \qquad\allowbreak "
        r"{x \leftarrow x + \mathrm{FFN}\big(\mathrm{LN}(x)\big)}"
    )


def feed_forward_equation(activation: str) -> str:
    """LaTeX of the feed-forward network with its activation's name."""
    return rf"\mathrm{{FFN}}(x) = \mathrm{{{activation.upper()}}}(x W_1 + b_1)\, W_2 + b_2"


def concat_sentence(n_heads: int, d_head: int, d_model: int) -> str:
    """How the heads' outputs become one update of the stream's width."""
    return (
        f"Each token's **{n_heads}** head {plural(n_heads, 'output')} of "
        f"**{d_head}** {plural(d_head, 'number')} "
        f"{'is' if n_heads == 1 else 'are'} laid end to end (one colour per head); "
        "$W_O$ mixes them into one update of "
        f"**{d_model}** numbers, the width of the stream it is added to."
    )


def nudge_sentence(names: Sequence[str], median_ratios: Sequence[float]) -> str:
    """The bars' legend in words and each sublayer's median ‖update‖ / ‖stream‖."""
    ratios = ", ".join(
        f"**{name}** {median:.2f}" for name, median in zip(names, median_ratios, strict=True)
    )
    return (
        "Light bars: the length of each token's vector as it enters a sublayer. Dark "
        f"bars: the length of what the sublayer adds. Median ‖update‖ / ‖stream‖: {ratios}. "
        + size_sentence(np.asarray(median_ratios))
    )


def size_sentence(medians: np.ndarray) -> str:
    """What the median ratios say about the size of each update, chosen by the numbers."""
    sizes = nudge_sizes(medians)
    total = sum(sizes.values())
    if sizes["large"] == 0 and sizes["sizeable"] == 0:
        return (
            f"Every median update is under {percent(SMALL_NUDGE)} of the stream's length: each "
            "sublayer nudges the tokens, and they keep most of what they were."
        )
    if sizes["large"] == 0:
        return (
            "Every median update is shorter than the stream it is added to; updates of at "
            f"least {percent(SMALL_NUDGE)} of its length, sizeable rather than small nudges: "
            f"{sizes['sizeable']} of {total}."
        )
    return (
        "Median updates at least as long as the stream itself, where the sublayer rewrites "
        f"the token rather than nudging it: {sizes['large']} of {total}."
    )


def reads_panels(
    toy: BlockReads, real: BlockReads | None, layer: int
) -> list[tuple[str, np.ndarray]]:
    """(title, shares) of each feed-forward-reads panel: the random block, then MiniLM's
    `layer` when the model is there (`real` not None)."""
    heads = toy.shares.shape[1]
    panels = [(f"these random weights ({heads} {plural(heads, 'head')})", toy.shares)]
    if real is not None:
        heads = real.shares.shape[1]
        panels.append(
            (f"MiniLM layer {layer}, trained ({heads} {plural(heads, 'head')})", real.shares)
        )
    return panels


def reads_sentence(toy: BlockReads, real: BlockReads | None, layer: int) -> str:
    """How the feed-forward units read the heads' blocks, random beside trained."""
    facts = [
        f"with these random weights its strongest head gives a median "
        f"**{percent(toy.median_top_share)}** (an even read: {percent(toy.even_share)}), and units "
        f"leaning on one head (over twice an even share) are {percent(toy.leaning())}"
    ]
    if real is not None:
        facts.append(
            f"in MiniLM's trained layer {layer}, **{percent(real.median_top_share)}** (even: "
            f"{percent(real.even_share)}), with **{percent(real.leaning())}** of its "
            f"{real.shares.shape[0]} units leaning on one head"
        )
    least = min(float(shares.min()) for _, shares in reads_panels(toy, real, layer))
    return (
        "The feed-forward network is the same two-layer network applied to each token on "
        "its own. Through $W_O$ it sees which numbers of the concatenation came from which "
        "head: each column below is one hidden unit, and how much of its reading (the norm "
        "of its weights along $W_O$, the LayerNorm's gain and $W_1$) comes from each "
        "head's block. "
        + f"The smallest share any unit takes from any head is {least:.1%}; "
        + "; ".join(facts)
        + "."
    )


def model_missing(error: str) -> str:
    """Why the trained-model part is left out."""
    return f"MiniLM is not available here, so this part is left out. {error}"


def trained_model_sentence(n_tokens: int, medians: np.ndarray) -> str:
    """MiniLM's median update sizes over its layers; `medians` is (layers, 2): attention,
    then feed-forward."""
    return (
        f"MiniLM on your sentence ({n_tokens} WordPiece tokens), {len(medians)} "
        f"post-LN layers. Attention's median update ranges from {medians[:, 0].min():.2f} to "
        f"{medians[:, 0].max():.2f} of the stream, the feed-forward's from "
        f"{medians[:, 1].min():.2f} to {medians[:, 1].max():.2f}. " + size_sentence(medians)
    )


def layer_path_sentence(n_states: int) -> str:
    """The lead-in of the tokens' path picture."""
    return f"Each token's path through the layers, all {n_states} hidden states in one PCA:"


# §2 ---------------------------------------------------------------------------------
def collapse_sentences(distances: np.ndarray, residual: Sequence[bool], stack_label: str) -> str:
    """What the stacks measured (`distances` (runs, depth + 1), `residual` per run), each
    claim chosen by its own numbers: the first run without and with the residual."""
    lone = distances[list(residual).index(False)]
    kept = distances[list(residual).index(True)]
    growth, floor = log_growth(lone), depth_reaching(lone)
    fall = f"falls to {power_of_ten(lone[-1])} by depth {MAX_DEPTH}"
    if floor is not None:
        fall = (
            f"reaches float64's rounding (below {power_of_ten(FLOAT64_LEVEL, 0)}: identical "
            f"tokens) at depth {floor}"
        )
    pace = ""
    if growth is not None and growth > 1.5:
        pace = (
            f" — *doubly* exponentially (Dong et al., 2021): its logarithm grows about "
            f"×{growth:.1f} per layer"
        )
    first = f"Without the residual ({stack_label}) the distance {fall}{pace}."
    ratio = kept[-1] / max(lone[-1], np.finfo(float).tiny)
    second = (
        f" With it, each layer only adds to the stream: from {kept[0]:.2f} at depth 0 the "
        f"distance is {power_of_ten(kept[-1])} at depth {MAX_DEPTH}, {power_of_ten(ratio, 0)} "
        "times the run "
        "without it."
    )
    if kept[-1] < kept[0] / 10:
        drift = power_of_ten(kept[0] / kept[-1], 0)
        second += f" It still drifts down, {drift} times over those layers."
    return first + second


def depth_metric(distances: np.ndarray, depth: int) -> tuple[str, str]:
    """(value, help) of one run's metric at the chosen depth."""
    return power_of_ten(distances[depth]), f"distance from rank 1 at depth {depth}"


# The charts' text alternatives ------------------------------------------------------


def concat_summary(concat: np.ndarray, update: np.ndarray, n_heads: int) -> str:
    """The concatenation and W_O heatmaps: their sizes and each one's largest value."""
    n, width = np.shape(concat)
    return (
        f"{n} {plural(n, 'token')} (rows): the outputs of their {n_heads} "
        f"{plural(n_heads, 'head')}, concatenated, {width} numbers a token, beside the update "
        "W_O makes of them, "
        f"{np.shape(update)[1]} numbers. Largest size: {np.abs(concat).max():.2f} "
        f"concatenated, {np.abs(update).max():.2f} in the update."
    )


def stream_update_summary(names: Sequence[str], ratios: np.ndarray) -> str:
    """The stream and update bars: each sublayer's ‖update‖ / ‖stream‖, median and range
    over the tokens (`ratios` (sublayers, n))."""
    spans = "; ".join(
        f"{name}: median {np.median(r):.2f}, from {np.min(r):.2f} to {np.max(r):.2f}"
        for name, r in zip(names, np.asarray(ratios), strict=True)
    )
    return (
        "Each token's stream length beside the length of what each sublayer adds. "
        f"‖update‖ / ‖stream‖ — {spans}."
    )


def hidden_summary(hidden: np.ndarray, activation: str) -> str:
    """The feed-forward hidden units: how many are above 0, and the largest."""
    n, units = np.shape(hidden)
    return (
        f"{activation.upper()} hidden layer: {n} {plural(n, 'token')} × {units} units, "
        f"{percent((np.asarray(hidden) > 0).mean())} of the values above 0, the largest "
        f"{np.max(hidden):.2f}."
    )


def reads_summary(panels: Sequence[tuple[str, np.ndarray]]) -> str:
    """The feed-forward reads: per panel (title, shares (d_ff, heads)), the share a unit
    takes from its strongest head on average, beside 1/h for reading evenly."""
    parts = "; ".join(
        f"{literal(title)}: {percent(np.asarray(shares).max(axis=1).mean())} "
        f"(evenly: {percent(1 / np.shape(shares)[1])})"
        for title, shares in panels
    )
    return (
        "How much of each feed-forward unit's reading comes from each head's block. "
        f"A unit's strongest head gives on average: {parts}."
    )


def layer_ratio_summary(ratios: np.ndarray) -> str:
    """MiniLM's nudges (layers, 2, n): the median token's ratio per sublayer in the first
    and the last layer."""
    medians = np.median(np.asarray(ratios), axis=2)  # (layers, sublayers)
    layers = len(medians)
    ends = "; ".join(
        f"{name}: {medians[0, i]:.2f} in layer 1, {medians[-1, i]:.2f} in layer {layers}"
        for i, name in enumerate(SUBLAYERS)
    )
    return f"Median ‖update‖ / ‖stream‖ over the tokens, layer by layer — {ends}."


def collapse_summary(labels: Sequence[str], distances: Sequence[np.ndarray], depth: int) -> str:
    """The rank-collapse curves: each run's distance from rank 1 at the picked depth and
    at the deepest."""
    last = len(distances[0]) - 1
    runs = "; ".join(
        f"{literal(label)}: {power_of_ten(d[depth])} at depth {depth}, "
        f"{power_of_ten(d[-1])} at {last}"
        for label, d in zip(labels, distances, strict=True)
    )
    return f"Distance from rank 1 against depth, log scale — {runs}."


def collapse_pca_summary(panels: Sequence[tuple[str, np.ndarray]], depth: int) -> str:
    """The tokens at one depth, per run: how far they spread (RMS distance from their
    mean, in the picture's units)."""
    spreads = "; ".join(
        f"{literal(title)}: {np.sqrt(((c - c.mean(axis=0)) ** 2).sum(axis=1).mean()):.2g}"
        for title, c in panels
    )
    return (
        f"The tokens after {depth} layers, one panel per run. Spread around their mean: {spreads}."
    )
