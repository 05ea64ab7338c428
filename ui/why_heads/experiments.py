"""Cached experiments of the "Why several heads?" page, and training with live progress.

Results are cached with st.cache_data per settings and seed. Training runs the cached
function as a shared job (ui.jobs): the script thread turns its progress events into a
progress bar and live loss curves, a rerun attaches to the same job, and a cache hit
returns at once.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable

import numpy as np
import streamlit as st

from attention.experiments.rank_limit import RankLimitResult, fit_rank_limit
from attention.experiments.training.train import (
    Comparison,
    TrainingConfig,
    Variant,
    compare_variants,
)
from attention.experiments.two_targets import TwoTargetResult, fit_two_targets
from shared_work.job_runner import JobState, computation
from ui import jobs
from ui.cache_policy import PER_USER_TTL

OnProgress = Callable[[str, int, np.ndarray], None]  # variant label, steps done, losses
# A job keeps only its last event, so each carries every variant's losses so far:
# (label being trained, its steps done, label → losses) lets a rerun redraw every curve.
JobProgress = Callable[[str, int, dict[str, np.ndarray]], None]


@st.cache_data(max_entries=64, ttl=PER_USER_TTL, show_spinner=False)
def two_targets(x: np.ndarray, query: int, a: int, b: int, seed: int) -> TwoTargetResult:
    """§2's fit for these token vectors, query and targets."""
    return fit_two_targets(x, query, (a, b), seed=seed)


@st.cache_data(max_entries=64, ttl=PER_USER_TTL, show_spinner=False)
def rank_limit(target: np.ndarray, d_model: int, penalty: float, seed: int) -> RankLimitResult:
    """§3's fits for d_head = 1 … n."""
    return fit_rank_limit(target, d_model=d_model, score_penalty=penalty, seed=seed)


@st.cache_data(max_entries=32, ttl=PER_USER_TTL, show_spinner=False)
@computation
def _comparison(
    settings: tuple[tuple[str, object], ...],
    seed: int,
    _progress: JobProgress | None = None,
) -> Comparison:
    so_far: dict[str, np.ndarray] = {}

    def report(variant: Variant, done: int, losses: np.ndarray) -> None:
        so_far[variant.label] = losses.copy()  # the worker keeps filling `losses`
        _progress(variant.label, done, dict(so_far))

    return compare_variants(
        TrainingConfig(**dict(settings)), seed, report if _progress is not None else None
    )


def settings_of(config: TrainingConfig) -> tuple[tuple[str, object], ...]:
    """The config as a plain, hashable cache key."""
    return tuple(dataclasses.asdict(config).items())


@dataclasses.dataclass(frozen=True)
class TrainingStatus:
    """Where a shared training run is: the share of its steps done, and its result once
    it has finished."""

    done: float
    comparison: Comparison | None


def training_status(config: TrainingConfig, seed: int, wait: float = 0.0) -> TrainingStatus:
    """The run `train(config, seed)` would wait for (the same job and cache), looked at
    once without blocking: started if nobody has started it yet. A cancelled run counts
    as not done (the next look starts it again); a failed one raises its error."""
    view, job = jobs.follow(_comparison, settings_of(config), seed, wait=wait)
    if view.state is JobState.DONE:
        return TrainingStatus(1.0, job.outcome())
    if view.state is JobState.FAILED:
        job.outcome()
    total = config.steps * len(config.variants())
    so_far = view.event[2] if view.event is not None else {}
    return TrainingStatus(sum(len(losses) for losses in so_far.values()) / total, None)


def train(config: TrainingConfig, seed: int, on_progress: OnProgress | None = None) -> Comparison:
    """The four variants trained from `seed` (cached); `on_progress(label, done, losses)`
    is called in the script thread while a run that was not cached trains, once per
    variant whose curve grew (all of them when a rerun attaches to a running job).
    Without `on_progress` nothing is drawn (safe inside another cached function)."""
    if on_progress is None:
        return jobs.result(_comparison, settings_of(config), seed)
    shown: dict[str, int] = {}  # label → steps of its curve already handed on

    def replay(label: str, done: int, so_far: dict[str, np.ndarray]) -> None:
        for name, losses in so_far.items():
            if shown.get(name) != len(losses):
                shown[name] = len(losses)
                on_progress(name, done if name == label else len(losses), losses)

    return jobs.run_with_progress(_comparison, settings_of(config), seed, on_progress=replay)
