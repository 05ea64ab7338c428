"""Text alternatives shared by several pages' charts: where one query puts its weight in
each head, and the strongest cells of one map. Every number is read from the arrays the
chart is drawn from, so a summary is true of its chart by construction. Tokens are
escaped (the summaries are shown as markdown captions)."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from attention.teaching.markdown import literal
from attention.wording import percent, plural

FOCUS_KEYS_PER_HEAD = 2  # keys named per head: more heads × more keys stops being short


def blocks_note(n_tokens: int, blocks: int) -> str:
    """How a pooled map of `n_tokens` is drawn: "64 × 64 blocks of about 8.0 tokens …"."""
    return (
        f"{blocks} × {blocks} blocks of about {n_tokens / blocks:.1f} tokens (a block's "
        "share of the attention)"
    )


def table_cut_note(cut: Sequence[tuple[int, int]], max_rows: int, max_columns: int) -> str | None:
    """Under a table read from its chart: which parts it shows only in part, e.g. "The
    table lists the first 24 of the 256 columns of the map of 11 × 256 cells." `cut`
    holds (rows, columns) per map, (marks, 0) per trace of points or bars. None when
    nothing is cut."""
    if not cut:
        return None
    parts = []
    for rows, columns in cut:
        if columns == 0:
            parts.append(f"the first {max_rows} of a trace's {rows:,} marks")
            continue
        shown = []
        if columns > max_columns:
            shown.append(f"the first {max_columns} of the {columns:,} columns")
        if rows > max_rows:
            shown.append(f"the first {max_rows} of the {rows:,} rows")
        parts.append(f"{' and '.join(shown)} of the map of {rows:,} × {columns:,} cells")
    return "The table lists " + "; ".join(parts) + "."


def numbered_heads(n_heads: int) -> list[str]:
    """The heads as summaries name them: "head 1", "head 2", …"""
    return [f"head {h + 1}" for h in range(n_heads)]


def quoted(token: str) -> str:
    """A token as a summary names it: escaped, in curly quotes."""
    return f"“{literal(token)}”"


def top_indices(values: np.ndarray, top: int) -> list[int]:
    """The indices of the `top` largest values, largest first (ties: the earlier index)."""
    return np.argsort(-np.asarray(values), kind="stable")[:top].tolist()


def weight_shares(key_tokens: Sequence[str], row: np.ndarray, top: int) -> str:
    """One query's `top` heaviest keys: "34% on “mat”, 21% on “sat”"."""
    return ", ".join(f"{percent(row[j])} on {quoted(key_tokens[j])}" for j in top_indices(row, top))


def per_head_shares(
    key_tokens: Sequence[str],
    focus_rows: np.ndarray,
    head_names: Sequence[str],
    top: int = FOCUS_KEYS_PER_HEAD,
) -> str:
    """Each head's heaviest keys for one query, `focus_rows` (heads, n_keys):
    "head 1: 34% on “mat”, 21% on “sat”; head 2: …"."""
    return "; ".join(
        f"{name}: {weight_shares(key_tokens, row, top)}"
        for name, row in zip(head_names, focus_rows, strict=True)
    )


def map_summary(
    name: str, query_tokens: Sequence[str], key_tokens: Sequence[str], weights: np.ndarray
) -> str:
    """One attention map (n_q, n_k), named `name`: its three strongest cells and how much
    a query's heaviest key takes on average."""
    weights = np.asarray(weights)
    cells = [divmod(i, weights.shape[1]) for i in top_indices(weights.ravel(), 3)]
    strongest = ", ".join(
        f"{quoted(query_tokens[q])} → {quoted(key_tokens[k])} {percent(weights[q, k])}"
        for q, k in cells
    )
    n_q, n_k = len(query_tokens), len(key_tokens)
    return (
        f"{name}: {n_q} {plural(n_q, 'query', 'queries')} (rows) × {n_k} "
        f"{plural(n_k, 'key')} (columns). "
        f"Strongest weights: {strongest}; a query's heaviest key takes "
        f"{percent(weights.max(axis=1).mean())} of its weight on average."
    )
