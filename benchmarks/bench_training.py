"""§4 training: seconds to train each head layout at the page's default settings, one
training step (forward + backward) of the hand-written NumPy model against the same model
under PyTorch autograd (float64, same batch), and the outcome across seeds (accuracy mean
± sd, range), so the numbers quoted for the page can be re-run.

Run: python -m benchmarks.bench_training [--seeds 5] [--noise 0 0.5 1.0]
"""

from __future__ import annotations

import argparse
import dataclasses
import time

import numpy as np
from threadpoolctl import threadpool_limits

from attention.experiments.training.model import TwoLookupModel
from attention.experiments.training.train import (
    TrainingConfig,
    build_model,
    compare_variants,
    seed_summary,
    train_variant,
)
from attention.figures.tables import seed_table
from benchmarks.common import THREADS, median_seconds, pin_threads, print_table

REPEATS = 3  # full training runs per variant (the median is printed)


def torch_step(model: TwoLookupModel, x: np.ndarray, answers: np.ndarray):
    """The same model written with torch ops, as a function running forward + backward,
    or None when torch is missing."""
    try:
        import torch
    except ImportError:
        return None
    params = [torch.tensor(p, requires_grad=True) for p in model.parameters()]
    tx, target = torch.tensor(x), torch.tensor(answers).reshape(-1)
    scale = model.attention.d_head**-0.5

    def step():
        w_q, w_k, w_v, w_o, w1, b1, w2, b2 = params
        for p in params:
            p.grad = None
        q = torch.einsum("bd,hde->bhe", tx[:, -1], w_q)
        k = torch.einsum("bnd,hde->bhne", tx, w_k)
        v = torch.einsum("bnd,hde->bhne", tx, w_v)
        weights = torch.softmax(torch.einsum("bhe,bhne->bhn", q, k) * scale, dim=-1)
        heads = torch.einsum("bhn,bhne->bhe", weights, v).reshape(len(tx), -1)
        hidden = torch.relu((tx[:, -1] + heads @ w_o) @ w1 + b1)
        logits = (hidden @ w2 + b2).reshape(len(target), -1)
        torch.nn.functional.cross_entropy(logits, target).backward()

    return step


def outcome_across_seeds(seeds: int, noises: list[float]) -> None:
    """Accuracy per variant over seeds 0 … seeds-1 at the default settings."""
    for noise in noises:
        config = dataclasses.replace(TrainingConfig(), noise=noise)
        runs = [compare_variants(config, seed) for seed in range(seeds)]
        labels = {v.key: v.label for v in config.variants()}
        rows = seed_table(seed_summary(runs), labels)
        print(f"\nOutcome over seeds 0–{seeds - 1}, noise {noise} (other settings default)")
        print_table(list(rows[0]), [list(row.values()) for row in rows])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, default=5)
    parser.add_argument("--noise", type=float, nargs="+", default=[TrainingConfig().noise])
    args = parser.parse_args()
    pin_threads()
    config = TrainingConfig()
    print(
        f"§4 training at the page defaults ({config.steps} steps, batch {config.batch_size}, "
        f"d_model {config.d_model}, {config.n_heads} heads), median of {REPEATS} runs, "
        f"threads={THREADS} (training pins BLAS to 1 thread)"
    )
    rows, total = [], 0.0
    for variant in config.variants():
        times = []
        for _ in range(REPEATS):
            start = time.perf_counter()
            train_variant(variant, config, seed=0)
            times.append(time.perf_counter() - start)
        median = float(np.median(times))
        total += median
        rows.append([variant.label, median, median / config.steps * 1e3])
    rows.append(["all four (one seed)", total, total / config.steps / 4 * 1e3])
    print_table(["variant", "seconds", "ms per step"], rows)

    print(
        "\nOne step (forward + backward) on the same batch, both on 1 thread as in training: "
        "NumPy by hand vs torch autograd"
    )
    threadpool_limits(1)
    try:
        import torch

        torch.set_num_threads(1)
    except ImportError:
        pass
    batch = config.task.sample(np.random.default_rng(0), config.batch_size)
    rows = []
    for variant in config.variants():
        model = build_model(variant, config, seed=0)

        def numpy_step(model=model):
            forward = model.forward(batch.x)
            model.gradients(forward, batch.answers)

        ours = median_seconds(numpy_step, repeats=200, warmup=20)
        reference = torch_step(model, batch.x, batch.answers)
        theirs = median_seconds(reference, repeats=200, warmup=20) if reference else None
        rows.append(
            [
                variant.label,
                ours * 1e3,
                "—" if theirs is None else theirs * 1e3,
                "—" if theirs is None else ours / theirs,
            ]
        )
    print_table(["variant", "NumPy ms", "torch autograd ms", "NumPy / torch"], rows)
    outcome_across_seeds(args.seeds, args.noise)


if __name__ == "__main__":
    main()
