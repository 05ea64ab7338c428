"""Run a cached computation in a worker thread and show its progress in the script
thread. A cached function must not update an element made outside it (Streamlit records
element calls for replay, and replaying an update of an outside placeholder fails), so
the worker's progress callback only queues its events (its arguments); the script thread
reads the queue and calls `on_progress`. A rerun or a closed page stops the worker at
its next report; a cache hit returns at once."""

from __future__ import annotations

import queue
import threading
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor, wait
from typing import TypeVar

T = TypeVar("T")
POLL_SECONDS = 0.1
OnProgress = Callable[..., None]


class CancelledError(Exception):
    """Raised inside a worker whose page was rerun or left before it finished."""


def run_with_progress(function: Callable[..., T], *args: object, on_progress: OnProgress) -> T:
    """`function(*args, _progress=callback)` run in a worker; every event it reports
    (the callback's arguments, e.g. done and total) reaches `on_progress` in the calling
    (script) thread."""
    events: queue.Queue = queue.Queue()
    stop = threading.Event()

    def report(*event: object) -> None:
        if stop.is_set():
            raise CancelledError
        events.put(event)

    pool = ThreadPoolExecutor(max_workers=1)
    future = pool.submit(function, *args, _progress=report)
    try:
        while True:
            finished = future.done()
            while not events.empty():
                on_progress(*events.get())
            if finished:
                return future.result()
            wait([future], timeout=POLL_SECONDS)
    finally:
        stop.set()  # a rerun interrupted us: let the worker stop at its next report
        pool.shutdown(wait=False)
