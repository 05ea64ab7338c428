"""serving.idle_collection: a full collection waits for a quiet worker, then frees cycles
that reached the oldest generation; Python's own thresholds come back on stop."""

from __future__ import annotations

import gc
import time
import weakref

import pytest

from serving.idle_collection import DEFERRED_FULL_AFTER, PYTHON_FULL_AFTER, IdleCollector


class _Node:
    def __init__(self) -> None:
        self.other: _Node | None = None


def _old_cycle() -> weakref.ref:
    """A cycle of garbage in the oldest generation, where only a full collection looks."""
    first, second = _Node(), _Node()
    first.other, second.other = second, first
    gc.collect(1)  # alive here, so moved to the oldest generation
    return weakref.ref(first)


def _owe_full_collection() -> None:
    for _ in range(PYTHON_FULL_AFTER):
        gc.collect(1)  # each counts as one middle collection since the last full one


@pytest.fixture
def automatic_collection_off():
    """Python's own collections off, so the counts the test sets stay as set."""
    was_enabled = gc.isenabled()
    gc.disable()
    yield
    if was_enabled:
        gc.enable()


class _Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def test_due_only_when_owed_and_quiet(automatic_collection_off):
    clock = _Clock()
    collector = IdleCollector(quiet_seconds=0.5, clock=clock)
    gc.collect()
    collector.note_collection("start", {"generation": 0})
    clock.now += 10
    assert not collector.due()  # quiet, but nothing owed since the full collection
    _owe_full_collection()
    collector.note_collection("start", {"generation": 1})
    clock.now += 0.4
    assert not collector.due()  # owed, but young collections ran 0.4 s ago
    collector.note_collection("stop", {"generation": 0})  # a stop is no new collection
    clock.now += 0.1
    assert collector.due()
    collector.note_collection("start", {"generation": 2})  # a full one is not allocation
    assert collector.due()


def test_thread_frees_old_cycles_once_quiet_and_restores_thresholds(automatic_collection_off):
    before = gc.get_threshold()
    collector = IdleCollector(quiet_seconds=0.05)
    collector.start()
    try:
        assert gc.get_threshold() == (before[0], before[1], DEFERRED_FULL_AFTER)
        dropped = _old_cycle()
        _owe_full_collection()
        deadline = time.monotonic() + 5.0
        while dropped() is not None and time.monotonic() < deadline:
            time.sleep(0.01)
        assert dropped() is None
        assert gc.get_count()[2] < PYTHON_FULL_AFTER  # the debt was paid by a full one
    finally:
        collector.stop()
    assert gc.get_threshold() == before
    assert collector.note_collection not in gc.callbacks


def test_quiet_seconds_must_be_positive():
    with pytest.raises(ValueError, match="quiet_seconds must be positive"):
        IdleCollector(quiet_seconds=0)
