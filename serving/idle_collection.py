"""Python's full garbage collections moved to the moments a worker is quiet.

A full collection walks every tracked object with the GIL held: in a class's worker
(~290,000 objects) it took 0.26-0.41 s, and left to Python one started inside a Next in
3 of 4 Nexts (bench_live_class, 6 Dec 2026), holding back that worker's 80 screens. Here
Python starts a full collection on its own only after ten times its usual number of middle
collections, and a daemon thread runs one as soon as the worker has made no young
collection for a while: between steps, when nobody waits. Nothing is frozen or skipped, so
every cycle of garbage is still freed; only the moment changes."""

from __future__ import annotations

import gc
import threading
import time
from collections.abc import Callable
from typing import Any

QUIET_SECONDS = 0.5  # no young collection for this long: no burst of reruns is running
PYTHON_FULL_AFTER = 10  # Python's default: a full collection after 10 middle ones
DEFERRED_FULL_AFTER = 100  # Python's own full collections wait for this many instead


class IdleCollector:
    """Runs gc.collect() when a full collection is due and young collections have paused.

    Due means as many middle collections since the last full one as Python itself waits
    for. Young collections are the allocation clock: while reruns allocate, they come
    every few milliseconds."""

    def __init__(
        self, quiet_seconds: float = QUIET_SECONDS, clock: Callable[[], float] = time.monotonic
    ) -> None:
        if quiet_seconds <= 0:
            raise ValueError(f"quiet_seconds must be positive, got {quiet_seconds}")
        self.quiet_seconds = quiet_seconds
        self._clock = clock
        self._last_young = clock()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._thresholds = gc.get_threshold()

    def note_collection(self, phase: str, info: dict[str, Any]) -> None:
        """gc.callbacks hook: remembers when the last young or middle collection started."""
        if phase == "start" and info["generation"] < 2:
            self._last_young = self._clock()

    def due(self) -> bool:
        """A full collection is owed and the worker has been quiet for quiet_seconds."""
        owed = gc.get_count()[2] >= PYTHON_FULL_AFTER
        return owed and self._clock() - self._last_young >= self.quiet_seconds

    def start(self) -> None:
        """Defer Python's own full collections and start the thread that runs them."""
        young, middle, _ = self._thresholds
        gc.set_threshold(young, middle, DEFERRED_FULL_AFTER)
        gc.callbacks.append(self.note_collection)
        self._thread = threading.Thread(target=self._run, name="idle-gc", daemon=True)
        self._thread.start()

    def stop(self) -> None:
        """Stop the thread and give Python back its own thresholds."""
        self._stop.set()
        if self._thread is not None:
            self._thread.join()
        if self.note_collection in gc.callbacks:
            gc.callbacks.remove(self.note_collection)
        gc.set_threshold(*self._thresholds)

    def _run(self) -> None:
        while not self._stop.wait(self.quiet_seconds / 2):
            if self.due():
                gc.collect()
