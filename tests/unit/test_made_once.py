"""MadeOnce (shared_work/made_once.py): one making per key however many sessions ask at once, no
wait across keys, failures not kept, the oldest dropped first."""

from __future__ import annotations

import threading
import time
from concurrent.futures import ThreadPoolExecutor

import pytest

from shared_work.made_once import MadeOnce, made_once_per_argument


def test_callers_of_one_key_wait_for_one_making():
    made: list[int] = []

    def make():
        made.append(1)
        time.sleep(0.2)
        return object()

    cache = MadeOnce(limit=4)
    with ThreadPoolExecutor(8) as pool:
        got = list(pool.map(lambda _: cache.get("step", make), range(8)))
    assert len(made) == 1
    assert all(thing is got[0] for thing in got)


def test_a_key_being_made_does_not_hold_up_another():
    cache = MadeOnce(limit=4)
    release = threading.Event()
    slow = threading.Thread(target=cache.get, args=("slow", lambda: release.wait(10) and "slow"))
    slow.start()
    time.sleep(0.05)  # the slow key is being made
    started = time.perf_counter()
    assert cache.get("quick", lambda: "quick") == "quick"
    assert time.perf_counter() - started < 1  # did not wait for the slow one
    release.set()
    slow.join()
    assert cache.get("slow", lambda: "made again") == "slow"


def test_a_failed_making_is_not_kept_and_the_oldest_goes_first():
    cache = MadeOnce(limit=2)

    def fail():
        raise ValueError("a one-word sentence")

    with pytest.raises(ValueError, match="one-word"):
        cache.get("short", fail)
    assert cache.get("short", lambda: "tried again") == "tried again"
    cache.get("b", lambda: "b")
    cache.get("c", lambda: "c")  # over the limit: "short", the oldest, goes
    assert cache.get("short", lambda: "made anew") == "made anew"
    assert cache.get("c", lambda: "not made") == "c"


def test_a_function_made_once_per_argument_keeps_none_too():
    calls: list[str] = []

    @made_once_per_argument(limit=4)
    def nothing_for(name: str) -> None:
        calls.append(name)

    for name in ("a", "a", "b", "a"):
        assert nothing_for(name) is None
    assert calls == ["a", "b"]
