"""Cached experiments of the "Why several heads?" page, and training with live progress.

Results are cached with st.cache_data per settings and seed. Training runs the cached
function in a worker thread: its progress callback only puts events on a queue, which the
script thread turns into a progress bar and live loss curves. So no Streamlit call happens
inside the cached function (Streamlit would record it for replay, and replaying an update
of a placeholder made outside the function fails), and a cache hit returns at once.
"""

from __future__ import annotations

import dataclasses
import queue
import threading
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor, wait

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
from ui.cache_policy import PER_USER_TTL

POLL_SECONDS = 0.1
OnProgress = Callable[[str, int, np.ndarray], None]  # variant label, steps done, losses


class TrainingCancelledError(Exception):
    """Raised inside a training run whose page was rerun or left before it finished."""


@st.cache_data(max_entries=64, ttl=PER_USER_TTL, show_spinner=False)
def two_targets(x: np.ndarray, query: int, a: int, b: int, seed: int) -> TwoTargetResult:
    """§2's fit for these token vectors, query and targets."""
    return fit_two_targets(x, query, (a, b), seed=seed)


@st.cache_data(max_entries=64, ttl=PER_USER_TTL, show_spinner=False)
def rank_limit(target: np.ndarray, d_model: int, penalty: float, seed: int) -> RankLimitResult:
    """§3's fits for d_head = 1 … n."""
    return fit_rank_limit(target, d_model=d_model, score_penalty=penalty, seed=seed)


@st.cache_data(max_entries=32, ttl=PER_USER_TTL, show_spinner=False)
def _comparison(
    settings: tuple[tuple[str, object], ...],
    seed: int,
    _progress: Callable[[Variant, int, np.ndarray], None] | None = None,
) -> Comparison:
    return compare_variants(TrainingConfig(**dict(settings)), seed, _progress)


def settings_of(config: TrainingConfig) -> tuple[tuple[str, object], ...]:
    """The config as a plain, hashable cache key."""
    return tuple(dataclasses.asdict(config).items())


def train(config: TrainingConfig, seed: int, on_progress: OnProgress | None = None) -> Comparison:
    """The four variants trained from `seed` (cached); `on_progress` is called in the
    script thread while a run that was not cached trains."""
    events: queue.Queue = queue.Queue()
    stop = threading.Event()

    def report(variant: Variant, done: int, losses: np.ndarray) -> None:
        if stop.is_set():
            raise TrainingCancelledError
        events.put((variant.label, done, losses.copy()))

    pool = ThreadPoolExecutor(max_workers=1)
    future = pool.submit(_comparison, settings_of(config), seed, report)
    try:
        while True:
            finished = future.done()
            while not events.empty():
                event = events.get()
                if on_progress is not None:
                    on_progress(*event)
            if finished:
                return future.result()
            wait([future], timeout=POLL_SECONDS)
    finally:
        stop.set()  # a rerun interrupted us: let the worker stop at its next report
        pool.shutdown(wait=False)
