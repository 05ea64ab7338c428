"""The soak's memory figures: medians of the 30-s RSS samples over a span (one sample can
sit ~200 MB off its neighbours), the last window's against the first window's and, in a
class, against the step after the first one."""

from __future__ import annotations

import argparse

from benchmarks.bench_soak import Action, Soak, median_rss, report, rss_range


def _soak(rss: list[tuple[float, float, float]], first_move: float | None = None) -> Soak:
    soak = Soak(0.0, step_every=150.0)
    soak.first_move = first_move
    soak.samples = [
        {"t": t, "rss": {"1": a, "2": b}, "sockets": {"1": 1}, "store_kb": 1.0} for t, a, b in rss
    ]
    soak.actions = [Action(t, 0.1, True, "ok") for t, _, _ in rss]
    return soak


def test_a_span_is_its_samples_median_and_range():
    soak = _soak([(30, 500, 600), (60, 700, 610), (90, 520, 620), (400, 900, 900)])
    assert median_rss(soak, 0, 100) == {"1": 520.0, "2": 610.0}
    assert rss_range(soak, 0, 100) == "520 (500–700) / 610 (600–620)"


def test_the_class_target_compares_the_last_window_with_the_step_after_the_first(capsys):
    samples = [(t, 500.0, 600.0) for t in range(0, 300, 30)]  # the first step and the next
    samples += [(t, 540.0 if t % 60 else 800.0, 720.0) for t in range(300, 1200, 30)]
    args = argparse.Namespace(
        window=300.0, timeout=60.0, minutes=20, followers=1, explorers=0, workers=2,
        step_every=150.0, live_class=True,
    )  # fmt: skip
    report(_soak(samples, first_move=150.0), args)
    out = capsys.readouterr().out
    (row,) = [line for line in out.splitlines() if "after the first step" in line]
    assert "+8%, +20%" in row and row.rstrip().endswith("False")  # 540/500, 720/600
