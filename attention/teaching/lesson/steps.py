"""What each step of the Lesson computes: its view, the facts its sentences quote and the
right answer to its question. Plain inputs in (tokens, vectors, traces, weights), a
StepView out; the page gathers the inputs (cached) and the words come from
assets/lesson.toml. Every fact is computed here from the same arrays the view draws.
One file of ~500 lines on purpose: fourteen short step functions in lesson order, read
side by side like the Lesson itself (none is over 45 lines).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import plotly.graph_objects as go

from attention.analysis.by_hand import ByHand
from attention.analysis.feed_forward_look import FeedForwardLook
from attention.analysis.ffn_reads import BlockReads
from attention.analysis.gradient_flow import GradientFlow
from attention.core.engine import AttentionTrace
from attention.core.layers import gelu
from attention.geometry.head_spaces import HeadSpaces, cosine_to, neighbours
from attention.geometry.planes import Layout2D
from attention.models.translation.pronoun import PronounChoice
from attention.teaching.lesson.quiz import Quiz, index_quiz
from attention.wording import numbered_repeats, power_of_ten


@dataclass(frozen=True)
class StepView:
    """One step's figure, the values its sentences quote (token strings stay unescaped:
    the renderer escapes them for its medium) and its question."""

    figure: go.Figure
    facts: dict[str, object]
    quiz: Quiz
    setting: str  # what was computed on: sentence, source, sizes (for the figure's caption)
    # The figure once the step is revealed, when the asking figure would tell the answer.
    revealed_figure: go.Figure | None = None


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
    labels = numbered_repeats(tokens)
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
    labels = numbered_repeats(tokens)
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


def by_hand_step(
    tokens: list[str],
    hand: ByHand,
    head: int,
    focus: int,
    figures: tuple[go.Figure, go.Figure],
    setting: str,
) -> StepView:
    """Step 3: one head's query for the focus token worked through by hand. Asked with
    `figures[0]` (the query, keys and values, no score yet), revealed with `figures[1]`
    (the arithmetic): which key gets the largest weight."""
    labels = numbered_repeats(tokens)
    ranking = [int(j) for j in np.argsort(-hand.weights, kind="stable")]
    winner = ranking[0]
    runner = ranking[1] if len(ranking) > 1 else winner
    facts = {
        "head": head + 1,
        "focus": labels[focus],
        "n": len(tokens),
        "d_head": hand.d_head,
        "root": float(np.sqrt(hand.d_head)),
        "winner": labels[winner],
        "winner_score": float(hand.scores[winner]),
        "winner_weight": float(hand.weights[winner]),
        "runner": labels[runner],
        "runner_score": float(hand.scores[runner]),
        "answer": labels[winner],
    }
    quiz = index_quiz(labels, winner, ranking, seed=13)
    return StepView(figures[0], facts, quiz, setting, revealed_figure=figures[1])


def distances_step(
    tokens: list[str],
    x: np.ndarray,
    trace: AttentionTrace,
    focus: int,
    figure: go.Figure,
    setting: str,
) -> StepView:
    """Step 6 helper facts: how much each head reorders the focus token's neighbours,
    measured in full dimensions (rank correlation of its scores with the cosines)."""
    near = neighbours(x, trace, focus)
    corr = np.nan_to_num(near.rank_corr, nan=1.0)
    most = int(np.argmin(corr))
    labels = [f"head {h + 1}" for h in range(len(corr))]
    ranking = [int(h) for h in np.argsort(corr, kind="stable")]
    facts = {
        "focus": numbered_repeats(tokens)[focus],
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


def most_varied_layer(attentions: np.ndarray, focus: int) -> int:
    """The 1-based layer of (layers, heads, n, n) weights whose heads' favourite keys for
    query `focus` are most varied (the first such layer on a tie)."""
    favourites = np.asarray(attentions)[:, :, focus, :].argmax(axis=-1)
    return int(np.argmax([len(set(row.tolist())) for row in favourites])) + 1


def looks_step(
    tokens: list[str],
    weights: np.ndarray,
    focus: int,
    layer: int,
    figure: go.Figure,
    setting: str,
) -> StepView:
    """Step 5: where each of a real layer's heads looks from the focus token, (heads, n)
    weights of the focus query. How many different tokens the heads look at most."""
    rows = np.asarray(weights, dtype=np.float64)
    tops = rows.argmax(axis=1)
    distinct = len(set(tops.tolist()))
    labels = numbered_repeats(tokens)
    spread = int(np.argmax(rows.max(axis=1) - rows.min(axis=1)))  # key the heads disagree on
    heads = rows.shape[0]
    options = [str(k) for k in range(1, heads + 1)]
    ranking = sorted(range(heads), key=lambda k: abs(k + 1 - distinct))
    facts = {
        "layer": layer,
        "heads": heads,
        "focus": labels[focus],
        "distinct": distinct,
        "answer": str(distinct),
        "most_key": labels[int(np.argmax(np.bincount(tops)))],
        "most_count": int(np.bincount(tops).max()),
        "spread_head": spread + 1,
        "spread_weight": float(rows[spread].max()),
        "spread_top": labels[int(rows[spread].argmax())],
    }
    return StepView(figure, facts, index_quiz(options, distinct - 1, ranking, seed=4), setting)


def two_targets_step(
    tokens: list[str],
    query: int,
    targets: tuple[int, int],
    one_head: tuple[float, float],
    two_heads: tuple[float, float],
    d_model: int,
    figure: go.Figure,
    setting: str,
) -> StepView:
    """Step 7: one head must share one distribution between two targets; two heads each
    give one target their own. Which layout gives both targets more weight."""
    labels = numbered_repeats(tokens)
    one_min, two_min = min(one_head), min(two_heads)
    layouts = [f"one head of {d_model}", f"two heads of {max(1, d_model // 2)}"]
    better = int(two_min > one_min)
    facts = {
        "query": labels[query],
        "a": labels[targets[0]],
        "b": labels[targets[1]],
        "one_a": one_head[0],
        "one_b": one_head[1],
        "two_a": two_heads[0],
        "two_b": two_heads[1],
        "one_sum": one_head[0] + one_head[1],
        "d_model": d_model,
        "d_half": max(1, d_model // 2),
        "answer": layouts[better],
    }
    quiz = index_quiz([*layouts, "both the same"], better, [1 - better, 2], seed=6)
    return StepView(figure, facts, quiz, setting)


def cost_step(
    layouts: list[tuple[str, int, int]], n_tokens: int, figure: go.Figure, setting: str
) -> StepView:
    """Step 8: parameters of h heads of d/h, one head of d and h full-size heads, given
    as (label, parameters, multiply-adds) rows in that order."""
    split, split_params, split_macs = layouts[0]
    one, one_params, _ = layouts[1]
    full, full_params, full_macs = layouts[2]
    ratio = full_params / split_params
    options = [f"×{ratio:.1f}", "×1.0", f"×{ratio * ratio:.1f}", f"×{max(ratio / 2, 0.5):.1f}"]
    facts = {
        "split": split,
        "one": one,
        "full": full,
        "split_params": split_params,
        "one_params": one_params,
        "full_params": full_params,
        "ratio": ratio,
        "macs_ratio": full_macs / split_macs,
        "n": n_tokens,
        "answer": options[0],
    }
    return StepView(figure, facts, index_quiz(options, 0, [1, 2, 3], seed=7), setting)


def slicing_step(shares: np.ndarray, d_model: int, figure: go.Figure, setting: str) -> StepView:
    """Step 9: each head's share of its W_Q weight in its own slice of the coordinates,
    against 1/h (reading every coordinate alike) and 100 % (slicing)."""
    shares = np.asarray(shares, dtype=np.float64)
    heads = len(shares)
    even = 1 / heads
    right = f"{shares[0]:.0%}"
    options = [right, "100%", "0%", f"{min(1.0, shares[0] + 0.5):.0%}"]
    facts = {
        "heads": heads,
        "d_model": d_model,
        "slice": d_model // heads,
        "share_min": float(shares.min()),
        "share_max": float(shares.max()),
        "share_first": float(shares[0]),
        "even": even,
        "answer": right,
    }
    return StepView(figure, facts, index_quiz(options, 0, [1, 2, 3], seed=8), setting)


def feed_forward_step(
    tokens: list[str],
    layer: int,
    look: FeedForwardLook,
    words: list[list[str]],
    vocabulary: int,
    figure: go.Figure,
    setting: str,
) -> StepView:
    """Step 11: the feed-forward network works on each token alone (measured), is
    non-linear (units that fire) and writes towards words (its strongest unit). The
    question: how far the focus token's output moves when another token's input
    changes — not at all when it moves less than a millionth of the changed token's."""
    labels = numbered_repeats(tokens)
    other = labels[look.other]
    options = (
        "it does not move",
        f"it moves less than “{other}”'s",
        f"it moves as much as “{other}”'s, or more",
    )
    if look.focus_moved <= 1e-6 * look.other_moved:
        right = 0
    else:
        right = 1 if look.focus_moved < look.other_moved else 2
    d_ff = look.pre_activation.shape[0]
    floor = float(gelu(np.linspace(-6.0, 0.0, 6001)).min())
    facts = {
        "layer": layer,
        "focus": labels[look.focus],
        "other": labels[look.other],
        "donor": labels[look.donor],
        "focus_moved": power_of_ten(look.focus_moved, 0),
        "other_moved": power_of_ten(look.other_moved, 0),
        "attention_moved": power_of_ten(look.attention_moved, 0),
        "d_ff": d_ff,
        "firing": look.firing,
        "firing_share": look.firing / d_ff,
        "gelu_floor": power_of_ten(floor),
        "vocabulary": vocabulary,
        "top_unit": look.units[0] + 1,
        "top_words": ", ".join(f"“{w}”" for w in words[0]),
        "answer": options[right],
    }
    quiz = index_quiz(options, right, [i for i in range(len(options)) if i != right], seed=14)
    return StepView(figure, facts, quiz, setting)


RESIDUAL_OPTIONS = ("the stacks with the residual", "the stacks without it", "no clear difference")


def residual_step(
    labels: list[str],
    residual: list[bool],
    distances: np.ndarray,
    flow: GradientFlow,
    figure: go.Figure,
    setting: str,
) -> StepView:
    """Step 12: distance from rank 1 after `flow.depth` layers for each stack variant,
    and the gradient's size at their first layer. The question is the lesson's point,
    residual against none: the stacks with the residual win when every one of them stays
    further from rank 1 than every stack without it."""
    depth = flow.depth
    final = np.asarray(distances, dtype=np.float64)[:, depth]
    best, worst = int(final.argmax()), int(final.argmin())
    kept = final[np.asarray(residual, dtype=bool)]
    plain = final[~np.asarray(residual, dtype=bool)]
    if kept.min() > plain.max():
        right = 0
    elif plain.min() > kept.max():
        right = 1
    else:
        right = 2
    facts = {
        "depth": depth,
        "best": labels[best],
        "best_distance": power_of_ten(final[best], 0),
        "worst": labels[worst],
        "worst_distance": power_of_ten(final[worst], 0),
        "residual_low": power_of_ten(kept.min(), 0),
        "residual_high": power_of_ten(kept.max(), 0),
        "plain_low": power_of_ten(plain.min(), 0),
        "plain_high": power_of_ten(plain.max(), 0),
        "gradient_with": power_of_ten(flow.with_residual),
        "gradient_without": power_of_ten(flow.without_residual),
        "answer": RESIDUAL_OPTIONS[right],
    }
    others = [i for i in range(len(RESIDUAL_OPTIONS)) if i != right]
    return StepView(figure, facts, index_quiz(RESIDUAL_OPTIONS, right, others, seed=10), setting)


def real_heads_step(
    n_tokens: int,
    layers: int,
    heads: int,
    scores: np.ndarray,
    role: str,
    figure: go.Figure,
    setting: str,
) -> StepView:
    """Step 14: a real model's heads on the sentence; the head whose `role` share (e.g.
    "previous token") is largest, and the runners-up as the other options."""
    flat = np.asarray(scores, dtype=np.float64).ravel()
    order = [int(i) for i in np.argsort(-flat, kind="stable")]
    names = [f"layer {i // heads + 1} · head {i % heads + 1}" for i in range(flat.size)]
    best = order[0]
    facts = {
        "n": n_tokens,
        "layers": layers,
        "heads": heads,
        "total": layers * heads,
        "role": role,
        "best": names[best],
        "best_share": float(flat[best]),
        "above_half": int((flat > 0.5).sum()),
        "answer": names[best],
    }
    return StepView(figure, facts, index_quiz(names, best, order, seed=12), setting)


def lecture_step(
    sentence: str,
    tokens: list[str],
    weights: np.ndarray,
    query: int,
    targets: tuple[int, int],
    how: str,
    figure: go.Figure,
    setting: str,
) -> StepView:
    """Step 4: the lecture's 2-D picture; how much of the query's weight each of the two
    heads gives the two target tokens, (heads, n) weights of the query."""
    w = np.asarray(weights, dtype=np.float64)
    a, b = targets
    pair = w[:, a] + w[:, b]
    top2 = int(np.argmax(w[1]))
    names = [f"head {h + 1}" for h in range(len(w))]
    mostly = [h for h in range(len(w)) if pair[h] > 0.5]
    right = names[mostly[0]] if len(mostly) == 1 else ("both" if mostly else "neither")
    options = [*names, "both", "neither"]
    facts = {
        "sentence": sentence,
        "query": tokens[query],
        "a": tokens[a],
        "b": tokens[b],
        "w1_a": float(w[0, a]),
        "w1_b": float(w[0, b]),
        "w1_ab": float(pair[0]),
        "w2_ab": float(pair[1]),
        "w2_top": float(w[1, top2]),
        "top2": tokens[top2],
        "how": how,
        "answer": right,
    }
    quiz = index_quiz(options, options.index(right), range(len(options)), seed=3)
    return StepView(figure, facts, quiz, setting)


def translation_step(
    english: str,
    source: list[str],
    you: int,
    who_is_you: np.ndarray,
    causal_mask: np.ndarray,
    choice: PronounChoice,
    pronouns: tuple[str, ...],
    figure: go.Figure,
    setting: str,
) -> StepView:
    """Step 13: self, causal and cross attention each doing their part: the encoder
    head's (n, n) weights `who_is_you` over the English `source` (row `you` is "you"),
    the decoder head's causal mask (True = may attend) and the cross-attention's reading
    at the start token (`choice`). The answer is the one German "you" left, or "not
    settled" when several fit."""
    row = np.asarray(who_is_you, dtype=np.float64)[you]
    top = int(np.argmax(row))
    labels = numbered_repeats(source)
    brought = ", ".join(f"{name} {value:.0%}" for name, value in choice.delivered.items())
    candidates = choice.candidates
    if len(candidates) == 1:
        right, decision = candidates[0], f"“{candidates[0]}” only"
    else:
        right = decision = "not settled: " + " or ".join(candidates or pronouns)
    unsettled = "not settled: " + " or ".join(pronouns)
    options = list(dict.fromkeys([right, *(p for p in pronouns if p != right), unsettled]))
    facts = {
        "english": english,
        "you": labels[you],
        "you_top": labels[top],
        "you_top_weight": float(row[top]),
        "blocked": int((~np.asarray(causal_mask, dtype=bool)).sum()),
        "on_you": choice.weight_on_you,
        "delivered": brought,
        "decision": decision,
        "answer": right,
    }
    return StepView(figure, facts, index_quiz(options, 0, range(1, len(options)), seed=11), setting)


def after_heads_step(
    layer: int,
    heads: int,
    d_head: int,
    d_model: int,
    reads: BlockReads,
    figure: go.Figure,
    setting: str,
) -> StepView:
    """Step 10: the concatenation, W_O and how the feed-forward units read the heads."""
    width = heads * d_head
    options = [str(width), str(d_head), str(heads), str(reads.shares.shape[0])]
    facts = {
        "layer": layer,
        "heads": heads,
        "d_head": d_head,
        "width": width,
        "d_model": d_model,
        "d_ff": reads.shares.shape[0],
        "median": reads.median_top_share,
        "even": reads.even_share,
        "leaning": reads.leaning(),
        "answer": str(width),
    }
    return StepView(figure, facts, index_quiz(options, 0, [1, 2, 3], seed=9), setting)
