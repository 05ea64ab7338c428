"""The sentences and choices of "Attention maps", each built from what it states: which
attention is shown, what the cross-attention weights are, how long maps are pooled,
and when the lines are drawn for the focus token only. User text is escaped."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from attention.teaching.markdown import literal
from attention.teaching.narration.charts import blocks_note, per_head_shares, quoted
from attention.wording import plural

SOURCE_WEIGHTS = "the sidebar source's heads"
TRANSLATION_WEIGHTS = "hand-built translation heads"
MAX_ALL_LINES_TOKENS = 64  # past this, every query's lines would be an unreadable mesh
TRAINED_HAS_NO_CROSS = (
    "Cross-attention needs a second sentence in the same space: the trained model only "
    "knows its task's symbols. Showing self-attention; switch the source to toy or real "
    "for cross-attention."
)


def kind_shown(kind: str, source: str) -> tuple[str, str | None]:
    """The attention drawn ("self" or "cross") for the one asked for, and why not when
    they differ: the trained model has no second sentence to cross with."""
    if kind == "cross" and source == "trained":
        return "self", TRAINED_HAS_NO_CROSS
    return kind, None


def translation_fallback(error: str) -> str:
    """Why the translation heads cannot take these sentences, and what is shown instead."""
    return f"{literal(error)} Showing {SOURCE_WEIGHTS} instead."


def cross_weights_caption(source: str, seed: int, layer: int, causal: bool) -> str:
    """What the sidebar source's weights are when they cross two sentences: nothing in
    them pairs a word with its translation, and a causal mask does not apply."""
    weights_are = (
        f"random (seed {seed})"
        if source == "toy"
        else f"MiniLM layer {layer}'s, trained for self-attention within one text"
    )
    caption = (
        "Rows are the second sentence's tokens asking; columns are the first sentence's "
        f"tokens answering. The weights are {weights_are}: nothing in them pairs a word "
        "with its translation, so no alignment is expected; choose the "
        f"{TRANSLATION_WEIGHTS} for heads built to align. "
    )
    if causal:
        caption += "The causal mask is off here: it only makes sense within one sequence."
    return caption


def grid_pooled_note(n_tokens: int, is_self: bool, blocks: int) -> str | None:
    """Under the grid: how a self-attention text longer than `blocks` tokens is drawn;
    None when every token has its own row."""
    if not is_self or n_tokens <= blocks:
        return None
    return (
        f"Your text has {n_tokens} tokens: each map above is drawn in "
        f"{blocks_note(n_tokens, blocks)}; the head enlarged below shows more."
    )


def large_pooled_note(n_tokens: int, is_self: bool, blocks: int) -> str | None:
    """Under the large maps: the same, for the head enlarged and the mean."""
    if not is_self or n_tokens <= blocks:
        return None
    return (
        f"Your text has {n_tokens} tokens: both maps are drawn in "
        f"{blocks_note(n_tokens, blocks)}; hover names each block's tokens."
    )


def only_focus_label(focus_token: str) -> str:
    """The label of the switch that draws the focus token's lines alone."""
    return f"Only the focus token ({literal(focus_token)})"


def only_focus_forced(n_tokens: int) -> bool:
    """Whether only the focus token's lines can be drawn: every query's would be a mesh."""
    return n_tokens > MAX_ALL_LINES_TOKENS


def only_focus_help(n_tokens: int) -> str | None:
    """The switch's help when it is fixed on, None while it is the user's choice."""
    if not only_focus_forced(n_tokens):
        return None
    return f"Over {MAX_ALL_LINES_TOKENS} tokens only the focus token's lines are drawn."


# The charts' text alternatives ------------------------------------------------------


def grid_summary(
    key_tokens: Sequence[str], focus_rows: np.ndarray, focus_token: str, head_names: Sequence[str]
) -> str:
    """All heads' maps: how many, and per head the focus query's heaviest keys;
    `focus_rows` (heads, n_keys)."""
    n_heads = len(head_names)
    return (
        f"{n_heads} attention {plural(n_heads, 'map')}, one per head. Row of "
        f"{quoted(focus_token)}: " + per_head_shares(key_tokens, focus_rows, head_names) + "."
    )


def lines_summary(
    key_tokens: Sequence[str], focus_rows: np.ndarray, focus_token: str, head_names: Sequence[str]
) -> str:
    """The lines of the heads drawn: per head, the focus query's heaviest keys (its
    widest lines); `focus_rows` (drawn heads, n_keys)."""
    return (
        f"Lines from queries to keys for {', '.join(head_names)}, as wide as the weights. "
        f"From {quoted(focus_token)}: " + per_head_shares(key_tokens, focus_rows, head_names) + "."
    )
