"""What each step of the Lesson computes: its view, the facts its sentences quote and the
right answer to its question. Plain inputs in (tokens, vectors, traces, weights), a
StepView out; the page gathers the inputs (cached) and the words come from
assets/lesson.toml. Every fact is computed here from the same arrays the view draws.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import plotly.graph_objects as go

from attention.engine import AttentionTrace
from attention.head_spaces import HeadSpaces, cosine_to, neighbours
from attention.lesson.quiz import Quiz, index_quiz
from attention.projection import Layout2D


@dataclass(frozen=True)
class StepView:
    """One step's figure, the values its sentences quote (token strings stay unescaped:
    the renderer escapes them for its medium) and its question."""

    figure: go.Figure
    facts: dict[str, object]
    quiz: Quiz
    setting: str  # what was computed on: sentence, source, sizes (for the figure's caption)


def token_labels(tokens: list[str]) -> list[str]:
    """Tokens as answer options: a token that occurs twice gets its position ("the (4)")."""
    counts: dict[str, int] = {}
    for token in tokens:
        counts[token] = counts.get(token, 0) + 1
    return [f"{t} ({i})" if counts[t] > 1 else t for i, t in enumerate(tokens)]


def points_step(
    tokens: list[str],
    x: np.ndarray,
    before: Layout2D,
    focus: int,
    figure: go.Figure,
    setting: str,
) -> StepView:
    """Step 1: the tokens as vectors; the focus token's nearest neighbour by cosine in
    all dimensions (itself excluded)."""
    n, d_model = x.shape
    if n < 2:
        raise ValueError("this step needs at least two tokens to compare.")
    cosine = cosine_to(x, focus)
    ranking = [int(j) for j in np.argsort(-cosine, kind="stable") if j != focus]
    nearest = ranking[0]
    labels = token_labels(tokens)
    facts = {
        "n": n,
        "d_model": d_model,
        "variance": before.variance_kept,
        "focus": labels[focus],
        "nearest": labels[nearest],
        "cosine": float(cosine[nearest]),
        "others": n - 1,
    }
    return StepView(figure, facts, index_quiz(labels, nearest, ranking, seed=1), setting)


def qkv_step(
    tokens: list[str],
    trace: AttentionTrace,
    head: int,
    focus: int,
    figure: go.Figure,
    setting: str,
) -> StepView:
    """Step 2: one head's query, key and value; the key the focus query weights most."""
    weights = np.asarray(trace.weights[head, focus], dtype=np.float64)
    ranking = [int(j) for j in np.argsort(-weights, kind="stable")]
    top = ranking[0]
    labels = token_labels(tokens)
    facts = {
        "head": head + 1,
        "d_model": trace.output.shape[-1],
        "d_head": trace.q.shape[-1],
        "focus": labels[focus],
        "top": labels[top],
        "answer": labels[top],
        "weight": float(weights[top]),
    }
    return StepView(figure, facts, index_quiz(labels, top, ranking, seed=2), setting)


def distances_step(
    tokens: list[str],
    x: np.ndarray,
    trace: AttentionTrace,
    focus: int,
    figure: go.Figure,
    setting: str,
) -> StepView:
    """Step 5 helper facts: how much each head reorders the focus token's neighbours,
    measured in full dimensions (rank correlation of its scores with the cosines)."""
    near = neighbours(x, trace, focus)
    corr = np.nan_to_num(near.rank_corr, nan=1.0)
    most = int(np.argmin(corr))
    labels = [f"head {h + 1}" for h in range(len(corr))]
    ranking = [int(h) for h in np.argsort(corr, kind="stable")]
    facts = {
        "focus": token_labels(tokens)[focus],
        "head": most + 1,
        "answer": labels[most],
        "rho": float(corr[most]),
        "rho_max": float(corr.max()),
        "heads": len(corr),
        "d_model": x.shape[1],
        "d_head": trace.q.shape[-1],
    }
    return StepView(figure, facts, index_quiz(labels, most, ranking, seed=5), setting)


def spaces_facts(spaces: HeadSpaces) -> dict[str, float]:
    """The worst and best faithfulness of the heads' 2-D pictures."""
    kept = [s.variance_kept for s in spaces.heads]
    return {"variance_min": float(min(kept)), "variance_max": float(max(kept))}
