"""Long computations as shared jobs of the process-wide runner (shared_work.job_runner), followed
from the script thread. A cached function must not update an element made outside it
(Streamlit records element calls for replay), so the worker only records its progress
events; the script thread polls the job, hands each new event to `on_progress` and says
how many jobs are queued ahead. A rerun stops the poll, not the job: the next run asks
for the same key and attaches to it, and a job nobody polls any more is cancelled after
GRACE_SECONDS."""

from __future__ import annotations

import os
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import TypeVar

import streamlit as st

from shared_work.job_runner import FINISHED, Job, JobRunner, JobView

T = TypeVar("T")
GRACE_SECONDS = 30.0
POLL_SECONDS = 0.2  # also how soon a widget move stops the poll: every poll draws
WORKERS_VARIABLE = "HEADSPACES_JOB_WORKERS"
OnProgress = Callable[..., None]

_runner: JobRunner | None = None
_runner_lock = threading.Lock()


def worker_count() -> int:
    """Computations run at once: $HEADSPACES_JOB_WORKERS, else 1 on up to 2 cores (the
    NumPy work of one job already keeps a core busy, and the pages need the other), else 2."""
    configured = os.environ.get(WORKERS_VARIABLE, "").strip()
    if configured:
        return int(configured)
    return 1 if (os.cpu_count() or 1) <= 2 else 2


def runner() -> JobRunner:
    """The process's one runner, made on first use. A module-level object rather than
    st.cache_resource: clearing Streamlit's caches must not drop a runner whose jobs are
    still running (the next request would start the same computation beside them)."""
    global _runner
    with _runner_lock:
        if _runner is None:
            _runner = JobRunner(worker_count(), GRACE_SECONDS)
        return _runner


def key_of(function: Callable, args: tuple) -> tuple:
    """A job's key: the function's full name and its (hashable) arguments."""
    return (function.__module__, function.__qualname__, args)


def queue_caption(ahead: int) -> str:
    """What a queued job's page says while it waits for a free worker."""
    if ahead == 0:
        return "Waiting for the job running on the server to finish: yours is next."
    return f"Waiting: {ahead} job{'s' if ahead > 1 else ''} ahead of yours in the queue."


def run_with_progress(function: Callable[..., T], *args: object, on_progress: OnProgress) -> T:
    """`function(*args, _progress=...)` (a cached function) as a shared job: while it
    runs, its latest new event (the callback's arguments, e.g. done and total) reaches
    `on_progress` in the calling (script) thread; returns its result or raises its error."""
    jobs = runner()
    job = jobs.submit(key_of(function, args), function, *args)
    waiting = st.empty()
    seen = 0
    while True:
        view = jobs.poll(job)
        if view.state in FINISHED:  # progress only while it runs: a cache hit draws none
            waiting.empty()
            return job.outcome()
        if view.event is not None and view.events != seen:
            seen = view.events
            on_progress(*view.event)
        if view.ahead is None:
            waiting.empty()
        else:
            waiting.caption(queue_caption(view.ahead))
        job.finished.wait(POLL_SECONDS)


@contextmanager
def progress_bar(title: str = "") -> Iterator[Callable[..., None]]:
    """A progress bar for the length of the block: the block calls `show(fraction, text)`
    (the text stays `title` when left out); the bar is gone once the block ends."""
    bar = st.progress(0.0, text=title or None)

    def show(fraction: float, text: str = title) -> None:
        bar.progress(fraction, text=text or None)

    yield show
    bar.empty()


def run_with_bar(title: str, function: Callable[..., T], *args: object) -> T:
    """`function(*args)` as a shared job under a progress bar titled `title`, for a job
    whose progress events are (done, total)."""
    with progress_bar(title) as show:
        return run_with_progress(
            function, *args, on_progress=lambda done, total: show(done / total)
        )


def follow(
    function: Callable[..., object], *args: object, wait: float = 0.0
) -> tuple[JobView, Job]:
    """`function(*args, _progress=...)` as a shared job, polled once after at most `wait`
    seconds instead of waited for: for a view that redraws its progress itself (a
    fragment that reruns on a timer) while the rest of its page stays usable."""
    jobs = runner()
    job = jobs.submit(key_of(function, args), function, *args)
    job.finished.wait(wait)
    return jobs.poll(job), job


def result(function: Callable[..., T], *args: object) -> T:
    """`function(*args)` as a shared job, waited for without drawing anything (for use
    inside another cached function, whose elements Streamlit would replay)."""
    return runner().result(key_of(function, args), function, *args)
