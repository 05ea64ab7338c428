"""Push for the live class: GET /api/classes/CODE/events, a server-sent-events stream of
what a student's screen draws (the step, phase, round and the step's answers, or that the
class ended). One watcher per class and process reads the store every WATCH_SECONDS while
anyone listens, so the cost grows with classes and workers, not with students; joined and
answered counts are left out (a vote must not redraw every phone)."""

from __future__ import annotations

import asyncio
import json
import signal
import threading
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass, field

from starlette.concurrency import run_in_threadpool

from classroom.store import ClassStore, ClassStoreError, PublicState, StoreUnavailableError

WATCH_SECONDS = 0.1
# A stream ends after STREAM_SECONDS and the browser's EventSource reconnects after
# RETRY_MS: a worker shutting down never waits on a stream for longer than that.
STREAM_SECONDS = 25.0
RETRY_MS = 1000
KEEPALIVE_SECONDS = 10.0


def screen_of(state: PublicState) -> str:
    """What a student's screen draws from the class's state, as the stream sends it."""
    return json.dumps(
        {
            "step": state.step,
            "phase": state.phase,
            "round": state.round,
            "options": list(state.votes),
        }
    )


def ended(error: ClassStoreError) -> str:
    """The stream's last message when the class is closed or gone."""
    return json.dumps({"ended": str(error)})


@dataclass
class _Watch:
    """One class's latest screen in this process, and who listens to it."""

    latest: str | None = None
    version: int = 0
    changed: asyncio.Event = field(default_factory=asyncio.Event)
    listeners: int = 0
    task: asyncio.Task | None = None


class ClassWatchers:
    """The watchers of this process, one per class with listeners."""

    def __init__(self, store: ClassStore, watch_seconds: float = WATCH_SECONDS) -> None:
        self._store = store
        self._watch_seconds = watch_seconds
        self._watches: dict[str, _Watch] = {}
        self._stopping = False

    def stop(self) -> None:
        """End every stream now (the server is stopping) and refuse new ones."""
        self._stopping = True
        for watch in self._watches.values():
            watch.changed.set()

    async def _run(self, code: str, watch: _Watch) -> None:
        while watch.listeners:
            try:
                screen = screen_of(await run_in_threadpool(self._store.state, code))
            except StoreUnavailableError:  # the class goes on: its screens stay as they are
                screen = watch.latest
            except ClassStoreError as error:
                screen = ended(error)
            if screen != watch.latest:
                watch.latest, watch.version = screen, watch.version + 1
                watch.changed.set()
                watch.changed = asyncio.Event()
            await asyncio.sleep(self._watch_seconds)
        if self._watches.get(code) is watch:
            del self._watches[code]

    async def stream(self, code: str, seconds: float = STREAM_SECONDS) -> AsyncIterator[str]:
        """Server-sent events for `code` (already checked): the screen now, then each
        change, a keep-alive comment when quiet, for `seconds` or until the class ends."""
        watch = self._watches.setdefault(code, _Watch())
        watch.listeners += 1
        if watch.task is None or watch.task.done():
            watch.task = asyncio.create_task(self._run(code, watch))
        loop = asyncio.get_running_loop()
        deadline = loop.time() + seconds
        seen = 0
        try:
            yield f"retry: {RETRY_MS}\n\n"
            while (left := deadline - loop.time()) > 0 and not self._stopping:
                if watch.version != seen and watch.latest is not None:
                    seen = watch.version
                    yield f"data: {watch.latest}\n\n"
                    if '"ended"' in watch.latest:
                        return
                try:
                    await asyncio.wait_for(watch.changed.wait(), min(KEEPALIVE_SECONDS, left))
                except TimeoutError:
                    yield ": keep-alive\n\n"
        finally:
            watch.listeners -= 1


def stop_on_signals(loop: asyncio.AbstractEventLoop, stop: Callable[[], None]) -> None:
    """Call `stop` on the loop at SIGINT/SIGTERM, then the handler already installed (the
    server's own). A stopping uvicorn waits for open responses, so without this an open
    stream would hold a worker's shutdown for up to STREAM_SECONDS. Only the main thread
    can set handlers; elsewhere (tests) this does nothing."""
    if threading.current_thread() is not threading.main_thread():
        return
    for sig in (signal.SIGINT, signal.SIGTERM):
        previous = signal.getsignal(sig)

        def handler(signum: int, frame: object, previous: object = previous) -> None:
            loop.call_soon_threadsafe(stop)
            if callable(previous):
                previous(signum, frame)

        signal.signal(sig, handler)
