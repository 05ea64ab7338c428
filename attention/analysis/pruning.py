"""Pruning curves: switch heads off one after another, least important first, down to one
head per layer, and follow a named score; the same for random orders as the baseline
(Michel et al., 2019, Fig. 3)."""

from __future__ import annotations

import math
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass

import numpy as np

from attention.analysis.ablation import MaskedRuns, Progress, Score
from attention.core.validation import check_positive_int
from attention.models.pretrained.model import PretrainedModel


@dataclass(frozen=True)
class PruningCurve:
    """`scores[k]` is the score with the first `removed[k]` heads of `order` switched off
    (`removed` is 0, 1, 2, … or, for a curve measured in steps, 0, k, 2k, …)."""

    score_name: str
    removed: np.ndarray  # (points,) 0, 1, 2, … heads off
    scores: np.ndarray  # (points,)
    order: tuple[tuple[int, int], ...]  # (layer, head) in the order switched off

    def heads_removable(self, drop: float = 0.05) -> int:
        """Heads switched off before the score first falls `drop` or more below its value
        with every head (0.05 = 5 points of accuracy); all of them if it never does. For
        a curve measured in steps: the last measured point before the fall."""
        fallen = np.flatnonzero(self.scores[0] - self.scores >= drop - 1e-9)
        return int(self.removed[fallen[0] - 1] if fallen.size else self.removed[-1])


@dataclass(frozen=True)
class CurveBand:
    """Several curves over the same points (random orders): their spread per point."""

    removed: np.ndarray  # (points,)
    low: np.ndarray  # (points,) lowest score
    median: np.ndarray
    high: np.ndarray


def curve_band(curves: Sequence[PruningCurve]) -> CurveBand:
    """Lowest, median and highest score at each number of heads removed."""
    lengths = {len(curve.scores) for curve in curves}
    if len(lengths) != 1:
        raise ValueError(f"curves must all have the same points; got lengths {sorted(lengths)}.")
    scores = np.stack([curve.scores for curve in curves])
    low, median, high = np.percentile(scores, [0, 50, 100], axis=0)
    return CurveBand(curves[0].removed, low, median, high)


def removable(mask: np.ndarray) -> np.ndarray:
    """(layers, heads) bool: heads still on in a layer that has more than one on."""
    on = mask > 0
    return on & (on.sum(axis=1, keepdims=True) > 1)


def prune_by_importance(
    model: PretrainedModel,
    score: Score,
    rescore_every: int = 6,
    progress: Progress | None = None,
    measure_every: int = 1,
) -> PruningCurve:
    """Switch off the least important head (by `score`'s drop, ties broken by how little
    the head moves the embeddings), `rescore_every` heads between two importance
    measurements, until one head per layer is left; the score is measured after every
    `measure_every` heads (a divisor of `rescore_every`, so each round ranks the heads
    with the removed ones really off) and at the end. Work: an importance pass per round
    plus one re-run per measured point."""
    rescore_every = check_positive_int("rescore_every", rescore_every)
    measure_every = check_positive_int("measure_every", measure_every)
    if rescore_every % measure_every:
        raise ValueError(
            f"measure_every must divide rescore_every={rescore_every}; "
            f"got measure_every={measure_every}."
        )
    runs = MaskedRuns(model, score.texts)
    reference = runs.embeddings()
    layers, heads = runs.mask.shape
    steps = layers * (heads - 1)
    heads_on = [layers * heads - r * rescore_every for r in range(math.ceil(steps / rescore_every))]
    measured = math.ceil(steps / measure_every)
    tracker = _Tracker(progress, _passes(layers, len(score.texts), sum(heads_on) + measured))

    def next_order() -> list[tuple[int, int]]:
        candidates = removable(runs.mask)
        ablated = runs.ablated(candidates, tracker.part())
        current = runs.embeddings()
        drop = score(current, reference) - score(ablated, reference)
        moved = 1 - (ablated * current).sum(axis=-1).mean(axis=-1)
        ranked = sorted(
            zip(*np.nonzero(candidates), strict=True), key=lambda h: (drop[h], moved[h])
        )
        return [(int(layer), int(head)) for layer, head in ranked]

    def choose() -> Iterator[tuple[int, int]]:
        pending = runs.mask.copy()  # heads chosen so far, measured or not
        while removable(pending).any():
            taken = 0
            for head in next_order():
                if taken == rescore_every:
                    break
                if removable(pending)[head]:
                    pending[head] = 0.0
                    taken += 1
                    yield head

    curve = _curve(runs, score, reference, choose(), tracker, measure_every)
    tracker.finish()
    return curve


def prune_in_random_order(
    model: PretrainedModel,
    score: Score,
    seeds: Iterable[int] = range(5),
    progress: Progress | None = None,
    measure_every: int = 1,
) -> list[PruningCurve]:
    """One curve per seed: heads switched off in a random order (a head is skipped when
    it is the last one on in its layer), the score measured after every `measure_every`
    heads and at the end (each measurement re-runs the sentences, so a band over many
    seeds gets `measure_every` times cheaper)."""
    measure_every = check_positive_int("measure_every", measure_every)
    seeds = list(seeds)
    runs = MaskedRuns(model, score.texts)
    reference = runs.embeddings()
    layers, heads = runs.mask.shape
    measured = math.ceil(layers * (heads - 1) / measure_every)
    tracker = _Tracker(progress, _passes(layers, len(score.texts), len(seeds) * measured))
    curves = []
    for seed in seeds:
        runs.set_mask(np.ones_like(runs.mask))
        order = random_order(seed, layers, heads)
        curves.append(_curve(runs, score, reference, order, tracker, measure_every))
    tracker.finish()
    return curves


def random_order(seed: int, layers: int, heads: int) -> list[tuple[int, int]]:
    """The heads in a seeded random order, each skipped when it would be the last one on
    in its layer: switched off in this order, one head per layer is left."""
    mask = np.ones((layers, heads))
    order = []
    for flat in np.random.default_rng(seed).permutation(layers * heads):
        head = divmod(int(flat), heads)
        if removable(mask)[head]:
            mask[head] = 0.0
            order.append(head)
    return order


def _curve(
    runs: MaskedRuns,
    score: Score,
    reference: np.ndarray,
    heads: Iterable[tuple[int, int]],
    tracker: _Tracker,
    measure_every: int = 1,
) -> PruningCurve:
    """Switch off `heads` one by one (a generator that may read `runs.mask` as it goes:
    with `measure_every` 1 it holds every head switched off so far), measuring the
    score after every `measure_every` heads and after the last."""
    scores = [float(score(runs.embeddings(), reference))]
    removed, order = [0], []
    mask = runs.mask.copy()

    def measure() -> None:
        runs.set_mask(mask, tracker.part())
        scores.append(float(score(runs.embeddings(), reference)))
        removed.append(len(order))

    for layer, head in heads:
        mask[layer, head] = 0.0
        order.append((layer, head))
        if len(order) % measure_every == 0:
            measure()
    if removed[-1] != len(order):
        measure()
    return PruningCurve(score.name, np.array(removed), np.array(scores), tuple(order))


def _passes(layers: int, sentences: int, head_runs: int) -> int:
    """Sentence-layer passes of `head_runs` runs from a head's layer on, estimated with
    the heads spread evenly over the layers (on average (layers + 1) / 2 layers each)."""
    return math.ceil(head_runs * sentences * (layers + 1) / 2)


class _Tracker:
    """One progress count over successive steps that each report their own (done,
    total); the total is an estimate, so `finish` reports completion."""

    def __init__(self, progress: Progress | None, total: int) -> None:
        self._progress, self._total, self._before = progress, max(1, total), 0

    def part(self) -> Progress | None:
        """A callback for the next step; its counts add to those of the steps before."""
        if self._progress is None:
            return None
        start = self._before

        def report(done: int, total: int) -> None:
            self._before = start + done
            self._progress(min(self._before, self._total - 1), self._total)

        return report

    def finish(self) -> None:
        if self._progress is not None:
            self._progress(self._total, self._total)
