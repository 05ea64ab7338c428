"""Switching MiniLM's heads off: the cost of one ablated forward pass against an unablated
one (target ≤ 1.1×, interleaved in the same process), the importance of all 72 heads on
the default sentence (target ≤ 3 s) and on the paraphrase task, the task's accuracy
with every head, and the pruning curves of the "Do we need all these heads?" page (its
settings; their time, and how many heads go before the accuracy drops by 5 points).

Run: python -m benchmarks.bench_ablation
"""

from __future__ import annotations

import time

import numpy as np

from attention.analysis.ablation import AccuracyScore, CosineScore, head_importance
from attention.analysis.heads_needed import (
    PRUNING_MEASURE_EVERY,
    PRUNING_RESCORE_EVERY,
    PRUNING_SEEDS,
)
from attention.analysis.paraphrase import load_paraphrase_task
from attention.analysis.pruning import prune_by_importance, prune_in_random_order
from attention.core.process_tuning import tune_process
from attention.models.pretrained import load_pretrained
from benchmarks.bench_pretrained import text_of
from benchmarks.common import THREADS, interleaved_medians, pin_threads, print_table

DEFAULT_TEXT = "The cat sat on the mat because it was tired."


def seconds(fn) -> tuple[float, object]:
    """Wall time of one call (these runs take seconds: medians would take minutes)."""
    start = time.perf_counter()
    result = fn()
    return time.perf_counter() - start, result


def main() -> None:
    pin_threads()
    tune_process()
    model = load_pretrained()
    layers, heads = model.config.layers, model.config.heads
    one_off = np.ones((layers, heads))
    one_off[layers // 2, 0] = 0.0

    rows = []
    for label, text in (("default sentence", DEFAULT_TEXT), ("128 tokens", text_of(model, 128))):
        plain, ablated = interleaved_medians(
            [lambda t=text: model.run(t), lambda t=text: model.run(t, head_mask=one_off)], 8
        )
        n = len(model.run(text).tokens)
        rows.append([label, n, plain * 1e3, ablated * 1e3, ablated / plain])
    print(f"threads: {THREADS}; float32; model: {model.config.name}")
    print("One forward pass, unablated vs one head off (target ratio ≤ 1.1):")
    print_table(["text", "tokens", "unablated ms", "one head off ms", "ratio"], rows)
    print()

    task = load_paraphrase_task()
    default_time, _ = seconds(lambda: head_importance(model, CosineScore((DEFAULT_TEXT,))))
    task_time, _ = seconds(lambda: head_importance(model, AccuracyScore(task)))
    full_time, traces = seconds(lambda: [model.run(text) for text in task.texts])
    print(f"Importance of all {layers * heads} heads (one wall-clock run each):")
    print_table(
        ["score", "sentences", "seconds", "target"],
        [
            ["cosine, default sentence", 1, default_time, "≤ 3 s"],
            [f"paraphrase accuracy, {len(task.triplets)} triplets", len(task.texts), task_time, ""],
            ["(one plain pass over the task's sentences)", len(task.texts), full_time, ""],
        ],
    )
    print()
    embeddings = np.stack([trace.sentence_embedding for trace in traces])
    print(f"Paraphrase accuracy with every head: {task.accuracy(embeddings):.3f}")
    print()

    score = AccuracyScore(task)
    curve_time, curve = seconds(
        lambda: prune_by_importance(
            model, score, PRUNING_RESCORE_EVERY, measure_every=PRUNING_MEASURE_EVERY
        )
    )
    random_time, randoms = seconds(
        lambda: prune_in_random_order(model, score, PRUNING_SEEDS, None, PRUNING_MEASURE_EVERY)
    )
    print("Pruning curves of the page (one wall-clock run each):")
    print_table(
        ["order", "seconds", "heads off before a 5-point drop"],
        [
            [
                f"least important first, importance every {PRUNING_RESCORE_EVERY} heads, "
                f"measured every {PRUNING_MEASURE_EVERY}",
                curve_time,
                curve.heads_removable(0.05),
            ],
            [
                f"random, {len(PRUNING_SEEDS)} seeds, measured every {PRUNING_MEASURE_EVERY} heads",
                random_time,
                " / ".join(str(c.heads_removable(0.05)) for c in randoms),
            ],
        ],
    )


if __name__ == "__main__":
    main()
