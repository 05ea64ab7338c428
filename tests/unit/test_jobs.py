"""The process-wide job runner (shared_work.job_runner) with small stand-in functions: one
computation per key however many ask, a bounded pool with a first-come queue, cache hits
that never queue, and cancellation of jobs nobody waits for."""

from __future__ import annotations

import threading

import pytest

from shared_work.job_runner import JobCancelledError, JobRunner, JobState, computation
from ui.jobs import queue_caption

WAIT = 10.0  # seconds a test waits for a thread before it fails


class Clock:
    """A clock the test moves by hand, so grace periods do not depend on the machine's speed."""

    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


class Gated:
    """A stand-in computation: counts its calls, reports once, then waits to be released."""

    def __init__(self) -> None:
        self.calls = 0
        self.started = threading.Event()
        self.release = threading.Event()

    @computation
    def __call__(self, value: int, _progress=None) -> int:
        self.calls += 1
        _progress(0, 1)
        self.started.set()
        assert self.release.wait(WAIT)
        _progress(1, 1)
        return value * 10


def finish(job) -> None:
    assert job.finished.wait(WAIT), f"job {job.key!r} did not finish"


def test_two_sessions_asking_the_same_job_compute_it_once():
    runner, compute = JobRunner(max_workers=1), Gated()
    results: list[int] = []
    sessions = [
        threading.Thread(target=lambda: results.append(runner.result("importance", compute, 3)))
        for _ in range(2)
    ]
    for session in sessions:
        session.start()
    assert compute.started.wait(WAIT)
    compute.release.set()
    for session in sessions:
        session.join(WAIT)
    assert results == [30, 30] and compute.calls == 1


def test_a_job_that_finished_while_nobody_polled_is_handed_to_the_next_request():
    runner, compute = JobRunner(max_workers=1), Gated()
    compute.release.set()
    finish(runner.submit("pruning", compute, 2))  # its page was rerun meanwhile
    assert runner.result("pruning", compute, 2) == 20 and compute.calls == 1


def test_asking_again_while_it_runs_attaches_instead_of_restarting():
    runner, compute = JobRunner(max_workers=1), Gated()
    first = runner.submit("training", compute, 1)
    assert compute.started.wait(WAIT)
    again = runner.submit("training", compute, 1)  # a rerun of the page asks again
    assert again is first and runner.poll(again).event == (0, 1)
    compute.release.set()
    finish(first)
    assert first.outcome() == 10 and compute.calls == 1


def test_with_the_pool_full_later_jobs_wait_and_say_their_place():
    runner = JobRunner(max_workers=2)
    computes = [Gated() for _ in range(4)]
    jobs = [runner.submit(f"job {i}", c, i) for i, c in enumerate(computes[:2])]
    for compute in computes[:2]:
        assert compute.started.wait(WAIT)
    jobs += [runner.submit(f"job {i}", c, i) for i, c in enumerate(computes[2:], start=2)]
    for job, ahead in ((jobs[2], 0), (jobs[3], 1)):
        _wait_until(lambda job=job: runner.poll(job).state is JobState.QUEUED)
        view = runner.poll(job)
        assert view.ahead == ahead and computes[jobs.index(job)].calls == 0
    assert [runner.poll(job).state for job in jobs[:2]] == [JobState.RUNNING] * 2
    computes[0].release.set()  # one slot frees: the first in the queue starts, not the last
    assert computes[2].started.wait(WAIT)
    assert runner.poll(jobs[3]).ahead == 0 and computes[3].calls == 0
    for compute in computes:
        compute.release.set()
    for job, value in zip(jobs, range(4), strict=True):
        finish(job)
        assert job.outcome() == value * 10


def test_a_cache_hit_does_not_queue_behind_a_running_computation():
    runner, busy = JobRunner(max_workers=1), Gated()
    runner.submit("long", busy, 1)
    assert busy.started.wait(WAIT)

    def cached(_progress=None) -> str:  # a cache hit: the @computation body is not entered
        return "from the cache"

    assert runner.result("hit", cached) == "from the cache"
    busy.release.set()


def test_a_job_nobody_polls_is_cancelled_at_its_next_report():
    clock = Clock()
    runner, compute = JobRunner(max_workers=1, grace_seconds=30, clock=clock), Gated()
    job = runner.submit("abandoned", compute, 1)
    assert compute.started.wait(WAIT)
    clock.now = 29.0
    runner.poll(job)  # someone still waits: the grace period starts again
    clock.now = 58.0
    assert runner.poll(job).state is JobState.RUNNING
    clock.now = 88.5  # nobody polled for 30.5 s
    compute.release.set()
    finish(job)
    assert job.state is JobState.CANCELLED
    with pytest.raises(JobCancelledError):
        job.outcome()
    again = Gated()
    again.release.set()
    assert runner.result("abandoned", again, 1) == 10  # asked again: a fresh job


def test_a_queued_job_nobody_polls_leaves_the_queue():
    clock = Clock()
    runner = JobRunner(max_workers=1, grace_seconds=0.2, clock=clock)
    busy, queued = Gated(), Gated()
    runner.submit("busy", busy, 1)
    assert busy.started.wait(WAIT)
    job = runner.submit("queued", queued, 2)
    _wait_until(lambda: runner.poll(job).state is JobState.QUEUED)
    clock.now = 1.0
    finish(job)
    assert job.state is JobState.CANCELLED and queued.calls == 0
    busy.release.set()


def test_a_failure_reaches_the_poller_and_a_new_request_retries():
    runner, attempts = JobRunner(), []

    def flaky(_progress=None) -> str:
        attempts.append(1)
        if len(attempts) == 1:
            raise ValueError("first attempt fails")
        return "second attempt"

    with pytest.raises(ValueError, match="first attempt"):
        runner.result("flaky", flaky)
    assert runner.result("flaky", flaky) == "second attempt"


def test_queue_caption_counts_the_jobs_ahead():
    assert "yours is next" in queue_caption(0)
    assert "1 job ahead of yours" in queue_caption(1)
    assert "3 jobs ahead of yours" in queue_caption(3)


def _wait_until(condition) -> None:
    done = threading.Event()
    for _ in range(int(WAIT / 0.01)):
        if condition():
            return
        done.wait(0.01)
    raise AssertionError("condition not reached")


def test_follow_looks_once_without_waiting_and_later_looks_attach(monkeypatch):
    from ui import jobs

    monkeypatch.setattr(jobs, "_runner", JobRunner(1, 30.0, Clock()))
    gated = Gated()
    compute = gated.__call__  # a bound method: jobs are keyed by qualified name
    view, job = jobs.follow(compute, 4)
    assert gated.started.wait(WAIT)
    view, again = jobs.follow(compute, 4)
    assert again is job and view.state is JobState.RUNNING and view.event == (0, 1)
    gated.release.set()
    view, job = jobs.follow(compute, 4, wait=WAIT)
    assert view.state is JobState.DONE and job.outcome() == 40 and gated.calls == 1
