"""The lecture's picture, literally: d_model = 2 and two heads with 2-D query/key/value
spaces, so every picture is exact (no PCA).

The sentence and its 2-D embeddings are content (assets/lecture.toml). The heads' W_Q
and W_K are found by a small seeded gradient descent so that, as in the forum thread's
illustration, head 1 moves the query "du" among the keys "tea" and "it's" (high weight on
both, nearer to their keys than to any other) while head 2 looks elsewhere. W_V and W_O
keep their seeded random start: the output ★ is the weighted mix of whatever values a
head has. The engine then computes everything shown.
"""

from __future__ import annotations

import math
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from attention.assets import ASSETS_DIR
from attention.core.engine import AttentionTrace, MultiHeadAttention, masked_softmax
from attention.core.validation import check_positive_float, check_positive_int
from attention.experiments.adam import Adam
from attention.models.toy import split_words

ASSET = ASSETS_DIR / "lecture.toml"
QUERY = "du"
TARGETS = ("tea", "it's")
LECTURE_TOKENS = (QUERY, TARGETS[0], "for", TARGETS[1])
MAX_LECTURE_TOKENS = 16
D_HEAD = 2
MARGIN = 0.1  # head 1: a target key must be this much nearer (squared distance) than others
WEIGHT_PENALTY = 0.005  # on ‖W_Q‖² + ‖W_K‖², so the fit settles at readable sizes
SHAPE_PENALTY = 0.1  # on how far each W is from a rotation-and-scaling (no squashing)


class LectureContentError(ValueError):
    """The lecture asset is not usable; the message says what to change."""


@dataclass(frozen=True)
class LectureSentence:
    """The sentence, its tokens and one 2-D embedding per token (n, 2)."""

    text: str
    tokens: tuple[str, ...]
    embeddings: np.ndarray

    def index(self, token: str) -> int:
        """Position of one of the lecture's tokens (each occurs exactly once)."""
        return [_key(t) for t in self.tokens].index(_key(token))


@dataclass(frozen=True)
class LectureFit:
    """The fitted heads and the engine's pass over the embeddings, with how they were made."""

    sentence: LectureSentence
    mha: MultiHeadAttention  # d_model 2, 2 heads of d_head 2, no biases
    trace: AttentionTrace  # self-attention over sentence.embeddings
    loss_history: np.ndarray  # (steps + 1,): the loss before each step and after the last
    seed: int
    description: str  # one paragraph of computed facts for the lesson page


def _key(token: str) -> str:
    """Tokens compare case-insensitively and with either apostrophe."""
    return token.replace("’", "'").casefold()


def parse_lecture_sentence(data: Mapping[str, object]) -> LectureSentence:
    """Check the asset's content: a sentence holding each of the lecture's tokens
    exactly once, and two finite coordinates for each of its tokens, none unused."""
    text = data.get("sentence")
    if not isinstance(text, str) or not text.strip():
        raise LectureContentError("The lecture asset needs a non-empty `sentence` string.")
    tokens, count = split_words(text, MAX_LECTURE_TOKENS)
    if count > MAX_LECTURE_TOKENS:
        raise LectureContentError(
            f"The lecture sentence has {count} tokens; at most {MAX_LECTURE_TOKENS} stay "
            "readable in one picture."
        )
    keys = [_key(t) for t in tokens]
    wrong = [t for t in LECTURE_TOKENS if keys.count(_key(t)) != 1]
    if wrong:
        raise LectureContentError(
            f"The lecture sentence must contain each of {', '.join(LECTURE_TOKENS)} exactly "
            f"once; {', '.join(wrong)} {'is' if len(wrong) == 1 else 'are'} missing or "
            f"repeated in {text!r}."
        )
    table = data.get("embeddings")
    if not isinstance(table, Mapping):
        raise LectureContentError("The lecture asset needs an `embeddings` table.")
    points = {_key(str(name)): value for name, value in table.items()}
    unused = sorted(set(points) - set(keys))
    missing = sorted({t for t in tokens if _key(t) not in points})
    if missing or unused:
        raise LectureContentError(
            f"Every token needs one embedding and every embedding a token; missing: "
            f"{missing or 'none'}, unused: {unused or 'none'}."
        )
    rows = []
    for token, key in zip(tokens, keys, strict=True):
        point = np.asarray(points[key], dtype=object)
        if point.shape != (2,) or not all(_is_number(v) for v in point):
            raise LectureContentError(
                f"The embedding of {token!r} must be two finite numbers [x, y]; "
                f"got {points[key]!r}."
            )
        rows.append(point.astype(np.float64))
    return LectureSentence(text, tuple(tokens), np.array(rows))


def _is_number(value: object) -> bool:
    """A finite int or float from TOML (booleans are not numbers here)."""
    return isinstance(value, int | float) and not isinstance(value, bool) and math.isfinite(value)


def load_lecture_sentence(path: Path = ASSET) -> LectureSentence:
    """Read and check the lecture asset (TOML)."""
    try:
        data = tomllib.loads(Path(path).read_text(encoding="utf-8"))
    except (OSError, tomllib.TOMLDecodeError) as error:
        raise LectureContentError(f"Cannot read the lecture asset {path}: {error}") from error
    return parse_lecture_sentence(data)


def fit_lecture_heads(
    sentence: LectureSentence, seed: int = 0, steps: int = 300, lr: float = 0.05
) -> LectureFit:
    """Fit both heads' W_Q and W_K (Adam, hand-written gradients) from the seeded start
    of MultiHeadAttention(2, 2, seed=seed); deterministic for given inputs."""
    steps = check_positive_int("steps", steps)
    lr = check_positive_float("lr", lr)
    start = MultiHeadAttention(2, 2, D_HEAD, seed=seed, bias=False, dtype=np.float64)
    w_q, w_k = start.w_q.copy(), start.w_k.copy()
    x = sentence.embeddings
    query = sentence.index(QUERY)
    targets = np.zeros(len(x), dtype=bool)
    targets[[sentence.index(t) for t in TARGETS]] = True
    optimiser = Adam([w_q, w_k], lr=lr)
    history = []
    for _ in range(steps):
        loss, grads = _loss_and_gradients(x, query, targets, w_q, w_k)
        history.append(loss)
        optimiser.step(grads)
    history.append(_loss_and_gradients(x, query, targets, w_q, w_k)[0])
    mha = MultiHeadAttention.from_weights(w_q, w_k, start.w_v.copy(), start.w_o.copy())
    trace = mha(x)
    loss_history = np.array(history)
    description = describe_fit(sentence, trace, loss_history, seed, lr)
    return LectureFit(sentence, mha, trace, loss_history, seed, description)


def lecture_picture(seed: int = 0) -> LectureFit:
    """The lesson's step: the asset's sentence with heads fitted from `seed`."""
    return fit_lecture_heads(load_lecture_sentence(), seed)


def _loss_and_gradients(
    x: np.ndarray, query: int, targets: np.ndarray, w_q: np.ndarray, w_k: np.ndarray
) -> tuple[float, list[np.ndarray]]:
    """The loss and its gradients with respect to w_q and w_k (2, d_model, d_head).

    Head 1: −mean log(weight of "du" on each target) + a hinge asking each target key to
    be nearer du's query than every other key by MARGIN. Head 2: −log(weight of du
    outside the targets). Every W: WEIGHT_PENALTY·‖W‖² + SHAPE_PENALTY·‖WᵀW − sI‖², s
    half the trace of WᵀW (zero for a rotation-and-scaling).
    """
    scale = np.sqrt(D_HEAD)
    loss, grad_q, grad_k = 0.0, np.zeros_like(w_q), np.zeros_like(w_k)
    for w, grad in ((w_q, grad_q), (w_k, grad_k)):
        gram = np.einsum("hij,hik->hjk", w, w)
        skew = gram - np.einsum("hii->h", gram)[:, None, None] / D_HEAD * np.eye(D_HEAD)
        loss += float(WEIGHT_PENALTY * (w**2).sum() + SHAPE_PENALTY * (skew**2).sum())
        grad += 2 * WEIGHT_PENALTY * w + 4 * SHAPE_PENALTY * w @ skew
    for head in range(2):
        q, keys = x[query] @ w_q[head], x @ w_k[head]
        weights = masked_softmax(keys @ q / scale)
        if head == 0:
            loss -= float(np.log(weights[targets]).mean())
            d_scores = weights - targets / targets.sum()
            hinge, d_q, d_keys = _nearer_hinge(q, keys, targets)
            loss += hinge
        else:
            elsewhere = weights[~targets].sum()
            loss -= float(np.log(elsewhere))
            d_scores = weights - np.where(targets, 0.0, weights) / elsewhere
            d_q, d_keys = np.zeros_like(q), np.zeros_like(keys)
        d_q += keys.T @ d_scores / scale
        d_keys += np.outer(d_scores, q) / scale
        grad_q[head] += np.outer(x[query], d_q)
        grad_k[head] += x.T @ d_keys
    return loss, [grad_q, grad_k]


def _nearer_hinge(
    q: np.ndarray, keys: np.ndarray, targets: np.ndarray
) -> tuple[float, np.ndarray, np.ndarray]:
    """Mean over (target, other) key pairs of max(0, MARGIN + D_target − D_other), D the
    squared distance from q; with its gradients for q and the keys."""
    offsets = q - keys
    distance = (offsets**2).sum(axis=1)
    excess = MARGIN + distance[targets][:, None] - distance[~targets][None, :]
    active = excess > 0
    pairs = active.size
    coefficient = np.zeros(len(keys))
    coefficient[targets] = active.sum(axis=1) / pairs
    coefficient[~targets] = -active.sum(axis=0) / pairs
    d_distance_q = 2 * (coefficient[:, None] * offsets)
    return float(excess[active].sum() / pairs), d_distance_q.sum(axis=0), -d_distance_q


def describe_fit(
    sentence: LectureSentence,
    trace: AttentionTrace,
    loss_history: np.ndarray,
    seed: int,
    lr: float,
) -> str:
    """One paragraph on how the weights were made, every number measured."""
    tokens, x = sentence.tokens, sentence.embeddings
    query = sentence.index(QUERY)
    tea, its = (sentence.index(t) for t in TARGETS)
    others = [j for j in range(len(tokens)) if j != query]
    nearest = others[int(np.argmin(np.linalg.norm(x[others] - x[query], axis=1)))]
    w1, w2 = trace.weights[0, query], trace.weights[1, query]
    near1 = np.argsort(np.linalg.norm(trace.k[0] - trace.q[0, query], axis=1), kind="stable")
    top2 = int(np.argmax(w2))
    return (
        f"The 2-D embeddings are set by hand in the lesson's content; there “{QUERY}” is "
        f"nearest to “{tokens[nearest]}”. Both heads' W_Q and W_K were "
        f"found by {len(loss_history) - 1} steps of Adam (learning rate {lr:g}) from the "
        f"random start of seed {seed}, on one loss: head 1 should give “{QUERY}” high "
        f"weight on both “{tokens[tea]}” and “{tokens[its]}” and put its query nearer to "
        f"their keys than to any other; head 2 should put its weight anywhere else; plus "
        f"small penalties that keep each W moderate and close to a rotation-and-scaling, "
        f"so no token is squashed onto another. W_V and W_O keep their random start (the star "
        f"is the weighted mix of whatever values a head has). The loss fell from "
        f"{loss_history[0]:.2f} to {loss_history[-1]:.2f}. Head 1 now gives “{QUERY}” "
        f"{w1[tea]:.0%} on “{tokens[tea]}” and {w1[its]:.0%} on “{tokens[its]}”, and the "
        f"two keys nearest its query are “{tokens[near1[0]]}” and “{tokens[near1[1]]}”, "
        f"so its ★ is {w1[tea] + w1[its]:.0%} their values' mix; head 2 gives those two "
        f"{w2[tea] + w2[its]:.0%} together and the most, {w2[top2]:.0%}, to "
        f"“{tokens[top2]}”."
    )
