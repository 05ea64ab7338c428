"""Shared timing helpers for the benchmarks: medians of repeated runs, one thread count
for every library in the process, and plain-text tables."""

from __future__ import annotations

import os
import statistics
import time
from collections.abc import Callable, Sequence

from threadpoolctl import threadpool_limits

THREADS = os.cpu_count() or 1


def pin_threads(threads: int = THREADS) -> None:
    """Give NumPy's BLAS and (when importable) PyTorch the same number of threads."""
    threadpool_limits(threads)
    try:
        import torch
    except ImportError:
        return
    torch.set_num_threads(threads)


def timed_runs(fn: Callable[[], object], repeats: int = 15, warmup: int = 3) -> list[float]:
    """Wall times of `repeats` runs of `fn()`, after `warmup` untimed runs."""
    for _ in range(warmup):
        fn()
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return times


def median_seconds(fn: Callable[[], object], repeats: int = 15, warmup: int = 3) -> float:
    """Median wall time of `fn()` over `repeats` runs after `warmup` untimed runs."""
    return statistics.median(timed_runs(fn, repeats, warmup))


def interleaved_medians(
    runs: list[Callable[[], object]], rounds: int, block: int = 5
) -> list[float]:
    """Median time of each function, timed in alternating blocks of `block` runs (each
    after one untimed run), so that load from other processes on a shared machine falls
    on all of them alike, while one library's idle threads never overlap the other's
    timed runs."""
    times: list[list[float]] = [[] for _ in runs]
    for _ in range(rounds):
        for run, record in zip(runs, times, strict=True):
            run()
            for _ in range(block):
                start = time.perf_counter()
                run()
                record.append(time.perf_counter() - start)
    return [statistics.median(record) for record in times]


def print_table(headers: Sequence[str], rows: Sequence[Sequence[object]]) -> None:
    """Print rows as a fixed-width table with a header line."""
    cells = [[str(c) for c in headers]] + [[_fmt(c) for c in row] for row in rows]
    widths = [max(len(row[i]) for row in cells) for i in range(len(headers))]
    for i, row in enumerate(cells):
        print("  ".join(c.rjust(w) for c, w in zip(row, widths, strict=True)))
        if i == 0:
            print("  ".join("-" * w for w in widths))


def _fmt(value: object) -> str:
    if isinstance(value, float):
        return f"{value:.3g}" if abs(value) < 1000 else f"{value:,.0f}"
    return str(value)
