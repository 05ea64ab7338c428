"""The numbers behind "Do we need all these heads?": which heads matter most and least
(with what each mostly attends to), how many heads a pruning order removes before the
score drops, and how rollout differs from raw attention for one token. The sentences that
state them are in attention.teaching.narration.heads_needed."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from attention.analysis.ablation import MaskedRuns, Progress
from attention.analysis.head_roles import ROLES
from attention.analysis.paraphrase import ParaphraseTask
from attention.analysis.pruning import PruningCurve
from attention.models.pretrained.model import PretrainedModel

# The page's pruning experiment. It re-runs the task's 186 sentences for every importance
# measurement and every point of a curve, a few seconds each here: importance measured
# twice (with all heads, then after 36 are off), every curve measured every 6 heads and
# three random orders keep it to a few minutes on two cores (benchmarks/bench_ablation.py
# times it).
PRUNING_RESCORE_EVERY = 36
PRUNING_MEASURE_EVERY = 6
PRUNING_SEEDS = (0, 1, 2)


@dataclass(frozen=True)
class ScoreView:
    """How one importance score is shown: its name, its unit and its numbers."""

    label: str  # what the reader picks
    title: str  # colour bar and hover
    scale: float  # importance × scale is what is written
    cell_format: str  # d3 / Python format of a written number
    unit: str

    def value(self, importance: float) -> str:
        return f"{importance * self.scale:{self.cell_format}}{self.unit}"


SCORE_VIEWS = {
    "cosine": ScoreView("cosine on your sentence", "drop of the cosine", 1.0, ".4f", ""),
    "accuracy": ScoreView(
        "paraphrase accuracy", "drop of accuracy (points)", 100.0, ".1f", " points"
    ),
}


def embedding_cosine(model: PretrainedModel, text: str, head_mask: np.ndarray) -> float:
    """Cosine between `text`'s sentence embedding under `head_mask` and with every head
    on (both unit length): 1 when switching the heads off changed nothing."""
    masked = model.run(text, head_mask=head_mask).sentence_embedding
    return float(masked @ model.run(text).sentence_embedding)


def masked_accuracy(
    model: PretrainedModel,
    task: ParaphraseTask,
    head_mask: np.ndarray,
    progress: Progress | None = None,
) -> float:
    """The paraphrase task's accuracy with the heads `head_mask` switches off."""
    runs = MaskedRuns(model, task.texts)
    runs.set_mask(head_mask, progress)
    return float(task.accuracy(runs.embeddings()))


@dataclass(frozen=True)
class RankedHead:
    """One head (0-based), its importance and the role taking most of its attention."""

    layer: int
    head: int
    importance: float
    role: str
    share: float


def extreme_heads(
    importance: np.ndarray, on: np.ndarray, roles: dict[str, np.ndarray]
) -> tuple[list[RankedHead], list[RankedHead]]:
    """The heads that are on with the largest and with the smallest importance (every
    head tied at that value), each with its strongest role from `roles` (role_scores)."""
    values = np.where(on, importance, np.nan)
    if not np.any(on):
        return [], []
    shares = np.stack([roles[role] for role in ROLES])

    def heads_at(value: float) -> list[RankedHead]:
        found = zip(*np.nonzero(on & np.isclose(importance, value, rtol=0, atol=1e-9)), strict=True)
        ranked = []
        for layer, head in found:
            best = int(shares[:, layer, head].argmax())
            ranked.append(
                RankedHead(
                    int(layer),
                    int(head),
                    float(importance[layer, head]),
                    ROLES[best],
                    float(shares[best, layer, head]),
                )
            )
        return ranked

    return heads_at(float(np.nanmax(values))), heads_at(float(np.nanmin(values)))


@dataclass(frozen=True)
class PruningSummary:
    """How far each order gets before the score drops by `drop`."""

    drop: float
    start: float  # the score with every head
    total_heads: int
    by_importance: int  # heads removed least important first before the drop
    by_random: tuple[int, ...]  # the same for each random order (its last measured point)
    measure_every: int  # heads between two measured points of a curve
    last: int  # heads removed at the end of a curve (one head per layer left)
    after: tuple[int, float] | None  # the importance order's next measured point: removed, score


def summarise_pruning(
    curve: PruningCurve, random_curves: Sequence[PruningCurve], total_heads: int, drop: float
) -> PruningSummary:
    """The pruning curve against its random-order baseline at one drop (0.05 = 5 points);
    every curve is measured at the same steps."""
    removable = curve.heads_removable(drop)
    point = int(np.searchsorted(curve.removed, removable)) + 1
    after = (
        (int(curve.removed[point]), float(curve.scores[point]))
        if point < len(curve.scores)
        else None
    )
    return PruningSummary(
        drop=drop,
        start=float(curve.scores[0]),
        total_heads=total_heads,
        by_importance=removable,
        by_random=tuple(c.heads_removable(drop) for c in random_curves),
        measure_every=int(curve.removed[1]) if len(curve.removed) > 1 else 1,
        last=int(curve.removed[-1]),
        after=after,
    )


@dataclass(frozen=True)
class RolloutContrast:
    """For one token in the last layer: shares of raw head-mean attention and of rollout
    on the token itself and on [CLS], and the key each puts most on."""

    layer: int  # 0-based
    self_raw: float
    self_rollout: float
    cls_raw: float
    cls_rollout: float
    top_raw: int
    top_rollout: int


def focus_rows(attentions: np.ndarray, rollout: np.ndarray, focus: int) -> np.ndarray:
    """(2, layers, n): the focus token's head-mean attention per layer, then its rollout."""
    return np.stack([np.asarray(attentions)[:, :, focus].mean(axis=1), rollout[:, focus]])


def rollout_contrast(rows: np.ndarray, tokens: Sequence[str], focus: int) -> RolloutContrast:
    """Raw against rollout in the last layer, from `focus_rows`' output."""
    raw, rolled = rows[0, -1], rows[1, -1]
    cls = [i for i, token in enumerate(tokens) if token == "[CLS]"]
    return RolloutContrast(
        layer=rows.shape[1] - 1,
        self_raw=float(raw[focus]),
        self_rollout=float(rolled[focus]),
        cls_raw=float(raw[cls].sum()),
        cls_rollout=float(rolled[cls].sum()),
        top_raw=int(raw.argmax()),
        top_rollout=int(rolled.argmax()),
    )
