"""The sentences of "Inside a real model", each built from the numbers it states: the
model's sizes, how the grid of small maps is drawn, one head's role scores, and how the
layer paths are labelled. User text is escaped."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np

from attention.analysis.head_metrics import uniform_entropy_bits
from attention.analysis.head_roles import ENTROPY, ROLES
from attention.teaching.markdown import literal
from attention.teaching.narration.charts import blocks_note, quoted, top_indices
from attention.wording import percent, plural


def model_sentence(name: str, layers: int, heads: int, d_model: int, d_head: int) -> str:
    """The page's opening: the model's sizes, computed by the same engine."""
    return (
        f"**{literal(name)}** is a trained BERT encoder: {layers} {plural(layers, 'layer')} × "
        f"{heads} {plural(heads, 'head')}, d_model = {d_model}, d_head = {d_head}. Every map "
        "below is computed in NumPy by the same attention engine as the other pages, with "
        "the model's real weights."
    )


def tokens_label(n_tokens: int) -> str:
    """The heading of the token list."""
    return (
        f"**{n_tokens} WordPiece {plural(n_tokens, 'token')}** (the model's own pieces, "
        "with `[CLS]` and `[SEP]`)"
    )


def tokens_folded(n_tokens: int, shown_open: int) -> bool:
    """Whether the token list goes into an expander: past `shown_open` tokens it would
    push the maps down the page."""
    return n_tokens > shown_open


def grid_note(n_tokens: int, role: str | None, blocks: int, numbers: bool = True) -> str:
    """The caption under the grid: how to read it, the pooling past `blocks` tokens and
    the role frames, with the scores written above the maps unless `numbers` is False
    (a phone: then they are in the table)."""
    note = (
        "Each small map: rows are queries, columns are keys, darker means more weight; "
        "hover for tokens and numbers. The framed map is the head opened below."
    )
    if n_tokens > blocks:
        note += (
            f" Your text has {n_tokens} tokens, so each small map is simplified to "
            f"{blocks_note(n_tokens, blocks)}; the large map below is full size."
        )
    if role is not None and numbers:
        note += (
            f" Frames and numbers above the maps: each head's “{role}” score; the "
            "frame colours run from 0 to the largest head's score."
        )
    elif role is not None:
        note += (
            f" The frames' colours give each head's “{role}” score, from 0 to the largest "
            "head's score; “Show as table” gives the numbers."
        )
    return note


def head_spaces_link(layer: int, heads: int) -> str:
    """What the Head spaces page shows of the open layer."""
    return (
        f"The **Head spaces** page can show layer {layer}'s {heads} trained "
        f"{plural(heads, 'head')}: its input vectors projected into each head's query/key "
        "space."
    )


def role_scores(shares: Mapping[str, float], entropy_bits: float, n_tokens: int) -> str:
    """One head's share of attention on each role's tokens, and its entropy beside that
    of weights spread evenly over the `n_tokens`, as a markdown list."""
    lines = [f"- {role}: **{percent(share)}** of its attention" for role, share in shares.items()]
    lines.append(
        f"- entropy: **{entropy_bits:.2f} bits** (spread evenly over all {n_tokens} "
        f"{plural(n_tokens, 'token')} it would be {uniform_entropy_bits(n_tokens):.2f} bits)"
    )
    return "\n".join(lines)


def all_heads_title(layers: int, heads: int) -> str:
    """The heading over the grid."""
    return f"All {layers * heads} heads at once"


def paths_caption(n_tokens: int, max_named: int) -> str:
    """Under the layer paths: one PCA for all states, and where the tokens are named."""
    named = (
        "Tokens are named at their embedding point."
        if n_tokens <= max_named
        else "Hover for the token."
    )
    return (
        "Every token's vector after the embeddings and after each layer, all projected by "
        "one PCA so the moves are comparable; the grey line joins one token's positions. " + named
    )


def head_grid_summary(score_name: str, scores: np.ndarray, highest: bool = True) -> str:
    """The grid of all heads: its size, and the three heads with the highest (or, for
    entropy, lowest) `score_name` in `scores` (layers, heads)."""
    layers, heads = scores.shape
    order = top_indices(scores.ravel() if highest else -scores.ravel(), 3)
    which = "highest" if highest else "lowest"
    named = ", ".join(
        f"layer {i // heads + 1} head {i % heads + 1} ({_score(score_name, scores.flat[i])})"
        for i in order
    )
    return (
        f"{layers * heads} small attention maps, {layers} layers (rows) × {heads} heads "
        f"(columns). The {which} {score_name}: {named}."
    )


def _score(name: str, value: float) -> str:
    """A role score as a share, entropy in bits."""
    return f"{value:.2f} bits" if name == ENTROPY else f"{percent(value)}"


def paths_summary(tokens: list[str], coords: np.ndarray) -> str:
    """The layer paths (steps, n, 2): how many tokens and steps, and the token whose
    drawn path is longest."""
    lengths = np.linalg.norm(np.diff(coords, axis=0), axis=2).sum(axis=0)
    longest = int(np.argmax(lengths))
    return (
        f"{len(tokens)} {plural(len(tokens), 'token')} drawn after the embeddings and after "
        f"each of {len(coords) - 1} layers. The longest path: {quoted(tokens[longest])}, "
        f"{lengths[longest]:.2f} units in the picture."
    )


def roles_overlap(roles: Mapping[str, np.ndarray]) -> str:
    """Why a row's role shares may add up to more than 100 %: the roles overlap (the
    previous token can be [CLS] or punctuation too), counted for this sentence."""
    totals = np.sum([np.asarray(roles[name], dtype=np.float64) for name in ROLES], axis=0)
    over = int(np.count_nonzero(totals > 1 + 1e-9))
    return (
        "The roles overlap: a key can be the previous token and punctuation at once, so "
        "one share of attention can count in several columns and a row may add up to more "
        f"than 100 %. Here {over} of {totals.size} heads' rows do."
    )


def reading_notice(examples: Sequence[tuple[str, Sequence[str]]], unknown: int) -> str | None:
    """What MiniLM did to words it was not trained on, with this text's own examples:
    `examples` are (word, its word pieces) for words with letters outside English's, and
    `unknown` counts the [UNK] tokens (an emoji, a script it lacks). None when neither."""
    if not examples and not unknown:
        return None
    parts = []
    if examples:
        shown = "; ".join(
            f"{quoted(word)} is read as {quoted(' '.join(pieces))}" for word, pieces in examples
        )
        parts.append(f"it lower-cases the text and strips accents, so {shown}")
    if unknown:
        parts.append(
            f"{unknown} {plural(unknown, 'token')} it has no word piece for "
            f"{'is' if unknown == 1 else 'are'} [UNK] (unknown)"
        )
    return "MiniLM is an English, uncased model: " + "; ".join(parts) + "."
