"""A process-wide runner for long computations, with no Streamlit in it.

Jobs are keyed by their computation (a function and its arguments): asking for a key
that is already queued, running or finished attaches to that job instead of starting
another, so two sessions (or a rerun of one) share one computation. Every job gets a
thread of its own, but its work waits for one of `max_workers` slots, first come first
served; a function marked `@computation` takes its slot only when its body runs, so a
cached function's cache hit returns without queueing behind long jobs. A job records its
last progress event and its state; a job nobody has polled for `grace_seconds` is
cancelled at its next progress report (or while it waits for a slot). A finished job is
kept until a poller sees it finished (so a rerun that missed the end still gets it), or
until nobody has polled it for that long; later requests then find the function's cache.
"""

from __future__ import annotations

import enum
import functools
import threading
import time
from collections import deque
from collections.abc import Callable, Hashable
from dataclasses import dataclass
from typing import ParamSpec, TypeVar

P = ParamSpec("P")
R = TypeVar("R")
Clock = Callable[[], float]


class JobCancelledError(Exception):
    """Raised inside a job's function when nobody has waited for it for the grace period."""


class JobState(enum.Enum):
    QUEUED = "queued"  # waiting for a free slot
    RUNNING = "running"
    DONE = "done"
    FAILED = "failed"
    CANCELLED = "cancelled"


FINISHED = frozenset({JobState.DONE, JobState.FAILED, JobState.CANCELLED})


@dataclass(frozen=True)
class JobView:
    """What a poller sees of a job at one moment."""

    state: JobState
    event: tuple | None  # the last progress event (the arguments of `_progress`)
    events: int  # how many events were reported so far (a new one changes this)
    ahead: int | None  # jobs queued before this one, while it is queued


class Job:
    """One computation: its state, last progress event and outcome."""

    def __init__(self, runner: JobRunner, key: Hashable) -> None:
        self.key = key
        self._runner = runner
        self.state = JobState.RUNNING
        self.event: tuple | None = None
        self.events = 0
        self.result: object = None
        self.error: BaseException | None = None
        self.last_polled = runner.clock()
        self.holds_slot = False
        self.finished = threading.Event()

    def report(self, *event: object) -> None:
        """The `_progress` callback handed to the function: records `event`, or stops the
        job (JobCancelledError) when nobody has polled it for the grace period."""
        if self._runner.abandoned(self):
            raise JobCancelledError(f"nobody waited for {self.key!r}")
        self.event, self.events = event, self.events + 1

    def outcome(self) -> object:
        """The finished job's result, or its error raised again."""
        if self.error is not None:
            raise self.error
        return self.result


_current = threading.local()  # .job: the job whose function this thread runs


def computation(function: Callable[P, R]) -> Callable[P, R]:
    """Mark a function's body as the expensive part: run by a job, it first waits for a
    free slot of the job's runner (so put this under a cache decorator: a cache hit
    skips the body and never queues); called any other way it just runs."""

    @functools.wraps(function)
    def in_a_slot(*args: P.args, **kwargs: P.kwargs) -> R:
        job: Job | None = getattr(_current, "job", None)
        if job is not None and not job.holds_slot:  # not yet: one computation calls another
            job._runner.take_slot(job)
        return function(*args, **kwargs)

    return in_a_slot


class JobRunner:
    """Runs keyed jobs, at most `max_workers` computations at a time."""

    def __init__(
        self, max_workers: int = 1, grace_seconds: float = 30.0, clock: Clock = time.monotonic
    ) -> None:
        if max_workers < 1:
            raise ValueError(f"max_workers must be at least 1; got {max_workers}.")
        self.max_workers, self.grace_seconds, self.clock = max_workers, grace_seconds, clock
        self._jobs: dict[Hashable, Job] = {}
        self._waiting: deque[Job] = deque()
        self._running = 0
        self._lock = threading.Condition()

    def submit(self, key: Hashable, function: Callable[..., object], *args: object) -> Job:
        """The job computing `function(*args, _progress=job.report)` under `key`: the one
        already queued, running or done, else a new one (a failed or cancelled job is
        started again)."""
        with self._lock:
            self._forget_stale()
            job = self._jobs.get(key)
            if job is not None and job.state not in (JobState.FAILED, JobState.CANCELLED):
                job.last_polled = self.clock()
                return job
            job = self._jobs[key] = Job(self, key)
        threading.Thread(
            target=self._work, args=(job, function, args), name=f"job {key!r}", daemon=True
        ).start()
        return job

    def poll(self, job: Job) -> JobView:
        """The job's state now; polling also tells the runner someone still waits for it."""
        with self._lock:
            job.last_polled = self.clock()
            if job.state in FINISHED and self._jobs.get(job.key) is job:
                del self._jobs[job.key]  # read now; a later request finds the function's cache
            ahead = self._waiting.index(job) if job.state is JobState.QUEUED else None
            return JobView(job.state, job.event, job.events, ahead)

    def result(self, key: Hashable, function: Callable[..., R], *args: object) -> R:
        """Submit (or attach to) the job and block until it is finished, polling it so
        it is not cancelled; its error is raised here."""
        job = self.submit(key, function, *args)
        while self.poll(job).state not in FINISHED:
            job.finished.wait(min(1.0, self.grace_seconds / 4))
        return job.outcome()

    def abandoned(self, job: Job) -> bool:
        """True when nobody has polled `job` for the grace period."""
        return self.clock() - job.last_polled > self.grace_seconds

    def _work(self, job: Job, function: Callable[..., object], args: tuple) -> None:
        _current.job = job
        try:
            job.result = function(*args, _progress=job.report)
            state = JobState.DONE
        except JobCancelledError as error:
            job.error, state = error, JobState.CANCELLED
        except Exception as error:  # the poller raises it again in its own thread
            job.error, state = error, JobState.FAILED
        finally:
            _current.job = None
        with self._lock:
            if job.holds_slot:
                job.holds_slot = False
                self._running -= 1
                self._lock.notify_all()
            job.state = state
            if state is JobState.CANCELLED and self._jobs.get(job.key) is job:
                del self._jobs[job.key]
        job.finished.set()

    def take_slot(self, job: Job) -> None:
        """Wait (queued, first come first served) until a slot is free, then hold it."""
        with self._lock:
            job.state = JobState.QUEUED
            self._waiting.append(job)
            try:
                while self._waiting[0] is not job or self._running >= self.max_workers:
                    if self.abandoned(job):
                        raise JobCancelledError(f"nobody waited for {job.key!r} in the queue")
                    self._lock.wait(timeout=min(1.0, self.grace_seconds / 4))
            finally:
                self._waiting.remove(job)
                self._lock.notify_all()
            self._running += 1
            job.holds_slot = True
            job.state = JobState.RUNNING

    def _forget_stale(self) -> None:
        """Drop finished jobs nobody has polled for the grace period."""
        for key, job in list(self._jobs.items()):
            if job.state in FINISHED and self.abandoned(job):
                del self._jobs[key]
