"""§4: train the four head layouts of the issue on the two-lookup task and compare them.

(a) one head with d_head = d_model, (b) h heads of d_model/h, (c) h full-size heads,
(d) h heads of d_model/h that each read only their own slice of the embedding. Every
variant sees the same batches in the same order and starts from the same seed; the result
is a deterministic function of (config, seed).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np
from numpy.lib.stride_tricks import sliding_window_view
from threadpoolctl import threadpool_limits

from attention import MultiHeadAttention
from attention.core.validation import check_positive_float, check_positive_int
from attention.experiments.adam import Adam
from attention.experiments.training.model import TwoLookupModel
from attention.experiments.training.task import Batch, TwoLookupTask

EVAL_SIZE = 2000
REPORT_EVERY = 50  # steps between progress reports


@dataclass(frozen=True)
class Variant:
    """One head layout: its key, a label for tables and charts, and its shape."""

    key: str
    label: str
    n_heads: int
    d_head: int
    sliced: bool = False


@dataclass(frozen=True)
class TrainingConfig:
    """Sizes of the task and the model, and how long to train."""

    d_model: int = 32
    n_heads: int = 4
    n_symbols: int = 8
    seq_len: int = 8
    noise: float = 0.5  # std of fresh noise on every token coordinate; see TwoLookupTask
    hidden: int = 64
    steps: int = 1000
    batch_size: int = 64
    lr: float = 3e-3

    def __post_init__(self) -> None:
        for name in ("d_model", "n_heads", "n_symbols", "seq_len", "hidden", "steps"):
            check_positive_int(name, getattr(self, name))
        check_positive_int("batch_size", self.batch_size)
        check_positive_float("lr", self.lr)
        if self.n_heads < 2 or self.d_model % self.n_heads:
            raise ValueError(
                f"n_heads must be at least 2 and divide d_model={self.d_model} (so that "
                f"variants b and d have whole slices); got n_heads={self.n_heads}."
            )

    @property
    def task(self) -> TwoLookupTask:
        return TwoLookupTask(self.n_symbols, self.seq_len, self.d_model, self.noise)

    def variants(self) -> list[Variant]:
        """The four layouts (a)–(d)."""
        d, h = self.d_model, self.n_heads
        return [
            Variant("one", f"(a) 1 head × {d}", 1, d),
            Variant("split", f"(b) {h} heads × {d // h}", h, d // h),
            Variant("full", f"(c) {h} heads × {d}", h, d),
            Variant("sliced", f"(d) {h} heads × {d // h}, sliced input", h, d // h, True),
        ]


@dataclass(frozen=True)
class VariantResult:
    """One trained variant and what it learned."""

    variant: Variant
    losses: np.ndarray  # (steps,) training loss of each step's batch
    batch_accuracy: np.ndarray  # (steps,) share of each step's batch with both answers right
    accuracy: float  # both answers right, on the evaluation set
    answer_accuracy: tuple[float, float]  # the A answer right; the B answer right
    focus: np.ndarray  # (n_heads, 3) mean weight on the A token, the B token, the rest
    diversity: float | None  # mean pairwise Jensen–Shannon divergence (bits); None for 1 head
    seconds: float
    model: TwoLookupModel

    def steps_to(self, accuracy: float = 0.95, window: int = 50) -> int | None:
        """First step at which the mean batch accuracy of the last `window` steps reaches
        `accuracy`; None if it never does."""
        if len(self.batch_accuracy) < window:
            return None
        running = sliding_window_view(self.batch_accuracy, window).mean(axis=1)
        reached = np.flatnonzero(running >= accuracy)
        return int(reached[0]) + window if reached.size else None


@dataclass(frozen=True)
class Comparison:
    """All four variants trained from one seed, and one evaluation example to draw."""

    config: TrainingConfig
    seed: int
    example_tokens: list[str]
    example_x: np.ndarray  # (seq_len + 1, d_model)
    results: dict[str, VariantResult]

    def example_weights(self, key: str) -> np.ndarray:
        """(n_heads, seq_len + 1): each head's weights for the query on the example."""
        return self.results[key].model.forward(self.example_x[None]).weights[0]


Progress = Callable[[Variant, int, np.ndarray], None]  # variant, steps done, losses so far


def build_model(variant: Variant, config: TrainingConfig, seed: int = 0) -> TwoLookupModel:
    """An untrained model of one layout, its weights drawn from `seed`."""
    return TwoLookupModel(
        config.d_model,
        variant.n_heads,
        variant.d_head,
        config.n_symbols,
        config.hidden,
        variant.sliced,
        seed,
    )


def train_variant(
    variant: Variant, config: TrainingConfig, seed: int = 0, progress: Progress | None = None
) -> VariantResult:
    """Train one layout with Adam on fresh batches from `seed`; evaluate on a held-out set."""
    task = config.task
    model = build_model(variant, config, seed)
    optimiser = Adam(model.parameters(), lr=config.lr, masks=model.masks())
    data = np.random.default_rng([seed, 2])
    losses, accuracy = np.empty(config.steps), np.empty(config.steps)
    start = time.perf_counter()
    # These matrices are small: BLAS threads only fight each other (3-10x slower on a
    # loaded 2-core machine), so train on one thread.
    with threadpool_limits(limits=1, user_api="blas"):
        for step in range(config.steps):
            batch = task.sample(data, config.batch_size)
            forward = model.forward(batch.x)
            losses[step] = model.loss(forward, batch.answers)
            accuracy[step] = (forward.logits.argmax(axis=-1) == batch.answers).all(axis=1).mean()
            optimiser.step(model.gradients(forward, batch.answers))
            done = step + 1
            if progress is not None and (done % REPORT_EVERY == 0 or done == config.steps):
                progress(variant, done, losses[:done])
    seconds = time.perf_counter() - start
    evaluation = evaluation_batch(config, seed)
    return _evaluate(variant, model, evaluation, losses, accuracy, seconds)


def compare_variants(
    config: TrainingConfig | None = None, seed: int = 0, progress: Progress | None = None
) -> Comparison:
    """Train (a)–(d) with the same batches and seed."""
    config = config or TrainingConfig()
    results = {v.key: train_variant(v, config, seed, progress) for v in config.variants()}
    example = evaluation_batch(config, seed)
    return Comparison(config, seed, config.task.labels(example, 0), example.x[0], results)


def example_tokens(config: TrainingConfig, seed: int) -> list[str]:
    """The labels of the example sequence a Comparison shows, without training."""
    return config.task.labels(evaluation_batch(config, seed), 0)


def seed_summary(comparisons: Sequence[Comparison]) -> dict[str, dict[str, np.ndarray]]:
    """Per variant key, one value per comparison (seed): 'accuracy', 'diversity' (NaN for
    one head) and 'steps_to_95' (NaN when 95 % batch accuracy was never reached)."""
    if not comparisons:
        raise ValueError("comparisons must hold at least one trained comparison; got none.")
    summary = {}
    for key in comparisons[0].results:
        results = [c.results[key] for c in comparisons]
        summary[key] = {
            "accuracy": np.array([r.accuracy for r in results]),
            "diversity": _or_nan([r.diversity for r in results]),
            "steps_to_95": _or_nan([r.steps_to(0.95) for r in results]),
        }
    return summary


def evaluation_batch(config: TrainingConfig, seed: int) -> Batch:
    """Held-out examples, drawn from their own stream so training never sees them."""
    return config.task.sample(np.random.default_rng([seed, 3]), EVAL_SIZE)


def trained_heads(
    comparison: Comparison, key: str = "split"
) -> tuple[MultiHeadAttention, list[str], np.ndarray]:
    """The trained attention layer of one variant as an engine MultiHeadAttention (a copy),
    with the example's tokens and their vectors (n, d_model) to feed it."""
    a = comparison.results[key].model.attention
    mha = MultiHeadAttention.from_weights(a.w_q.copy(), a.w_k.copy(), a.w_v.copy(), a.w_o.copy())
    return mha, list(comparison.example_tokens), comparison.example_x.copy()


def mean_pairwise_jsd(distributions: np.ndarray) -> np.ndarray:
    """Mean Jensen–Shannon divergence in bits (0 = identical, 1 = disjoint) over all pairs
    of heads; distributions (..., n_heads, n) → (...). Needs at least two heads."""
    p = np.asarray(distributions, dtype=np.float64)
    n_heads = p.shape[-2]
    if n_heads < 2:
        raise ValueError(f"distributions must hold at least 2 heads; got {n_heads}.")
    i, j = np.triu_indices(n_heads, k=1)
    a, b = p[..., i, :], p[..., j, :]
    middle = (a + b) / 2
    jsd = 0.5 * (_kl_bits(a, middle) + _kl_bits(b, middle))
    return jsd.mean(axis=-1)


def _or_nan(values: list[float | None]) -> np.ndarray:
    return np.array([np.nan if v is None else v for v in values], dtype=np.float64)


def _kl_bits(p: np.ndarray, q: np.ndarray) -> np.ndarray:
    ratio = np.divide(p, q, out=np.ones_like(p), where=p > 0)
    return (p * np.log2(ratio)).sum(axis=-1)


def _evaluate(
    variant: Variant,
    model: TwoLookupModel,
    batch: Batch,
    losses: np.ndarray,
    batch_accuracy: np.ndarray,
    seconds: float,
) -> VariantResult:
    forward = model.forward(batch.x)
    right = forward.logits.argmax(axis=-1) == batch.answers  # (B, 2)
    weights = forward.weights  # (B, h, n)
    marks = np.pad(batch.marks, ((0, 0), (0, 1)))  # the query token is unmarked
    on_a = (weights * (marks == 1)[:, None, :]).sum(axis=-1).mean(axis=0)
    on_b = (weights * (marks == 2)[:, None, :]).sum(axis=-1).mean(axis=0)
    focus = np.stack([on_a, on_b, 1.0 - on_a - on_b], axis=1)
    diversity = None
    if variant.n_heads > 1:
        diversity = float(mean_pairwise_jsd(weights).mean())
    return VariantResult(
        variant=variant,
        losses=losses,
        batch_accuracy=batch_accuracy,
        accuracy=float(right.all(axis=1).mean()),
        answer_accuracy=(float(right[:, 0].mean()), float(right[:, 1].mean())),
        focus=focus,
        diversity=diversity,
        seconds=seconds,
        model=model,
    )
