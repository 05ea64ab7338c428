"""A live class's student without a browser: a harness.streamlit_client tab on the join
link, the device id the device component would send, and the class's server-sent events
over plain HTTP, each new screen triggering the class fragment's rerun as the push
component does, and showing the step its page drew ahead when the push announces exactly
that screen (ui/components/class_push.js). Used by the class benchmark and the soak."""

from __future__ import annotations

import asyncio
import json
import re
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from urllib.parse import urlsplit

from classroom.store import new_device_id
from harness.streamlit_client import Run, StreamlitTab

DEVICE_KEY = "live_device"  # ui.live.joining's device component
PUSH_KEY = "live_push"  # … and its push component
NARROW_KEY = "narrow_screen"  # ui.media's reporter of a phone's width
STATUS = re.compile(r"Class \w+ · Step (\d+) of")  # a student's status line (narration)


def class_step(texts: list[str]) -> int | None:
    """The class's step a run drew: its first status line (the step drawn ahead, hidden,
    has one too, after it); None when the run drew none."""
    return next((int(shown[1]) for text in texts if (shown := STATUS.search(text))), None)


def vote_key(step: int, round: int = 1) -> str:
    """The key of a step's vote in a round (ui.live.vote.vote)."""
    return f"live_vote_{step}_{round}"


@dataclass
class ClassStudent:
    """One protocol-level student: the page tab, its device id and what it measured;
    `record` (if given) sees every run with the perf_counter time it started."""

    tab: StreamlitTab
    record: Callable[[float, Run], None] | None = None
    phone: bool = False  # says its screen is a phone's, as ui.media's reporter does
    device: str = field(default_factory=new_device_id)
    lock: asyncio.Lock = field(default_factory=asyncio.Lock)
    drawn: str = ""  # the last screen (SSE data) its page was rerun for
    screen_changed: asyncio.Event = field(default_factory=asyncio.Event)
    shown_at: dict[int, float] = field(default_factory=dict)  # step → when first shown
    drawn_at: dict[int, float] = field(default_factory=dict)  # step → when a run drew it
    showing: int = 0  # the step its page showed last
    ahead: str | None = None  # the screen its page holds drawn ahead, hidden
    shown_ahead: set[int] = field(default_factory=set)  # steps shown from the drawn ahead
    pushed_at: dict[int, float] = field(default_factory=dict)  # step → when first pushed
    errors: list[str] = field(default_factory=list)
    reruns: set[asyncio.Task] = field(default_factory=set)  # pending, kept from the GC

    def rerun_soon(self, screen: str) -> None:
        task = asyncio.create_task(self.rerun(screen))
        self.reruns.add(task)
        task.add_done_callback(self.reruns.discard)

    async def _run(self, request) -> Run:
        start = time.perf_counter()
        run = await request
        if self.record is not None:
            self.record(start, run)
        if not run.ok:
            self.errors.append(run.status)
        drawn = class_step(run.texts)
        if drawn is not None:
            self.showing = drawn
            self.shown_at.setdefault(self.showing, time.monotonic())
            self.drawn_at.setdefault(self.showing, time.monotonic())
            self.ahead = self.tab.component_data(PUSH_KEY).get("ahead")
        return run

    async def join(self) -> float:
        """Open the join link and say the device id; seconds until the step is drawn."""
        start = time.monotonic()
        async with self.lock:
            await self._run(self.tab.open())
            await self._say_who()
        if not self.shown_at:  # the class's status line: joined, step drawn
            self.errors.append("not joined")
        return time.monotonic() - start

    async def _say_who(self) -> None:
        """What a new session's components send: the device id, and whether the screen is
        a phone's when that differs from what the page assumes (ui/media.py)."""
        await self._run(self.tab.set_component_state(DEVICE_KEY, {"device": self.device}))
        if self.tab.component_data(NARROW_KEY).get("matches", False) != self.phone:
            await self._run(self.tab.set_component_state(NARROW_KEY, {"matches": self.phone}))

    async def rerun(self, screen: str) -> None:
        """What the push component does with a new screen: its trigger reruns the class's
        fragment (after a lost socket: the frontend reconnects and reruns the whole page,
        then the device id goes to the new session)."""
        async with self.lock:
            if not self.tab.connected:
                await self.tab.reconnect(60.0)
                await self._run(self.tab.rerun())
                await self._say_who()
            else:
                await self._run(self.tab.trigger_component(PUSH_KEY, "moved", screen))

    async def vote(self, step: int, option: str, round: int = 1) -> bool:
        """Answer; True once the page acknowledged it (its run finished without error)."""
        async with self.lock:
            if not self.tab.connected:
                return False
            run = await self._run(self.tab.set(vote_key(step, round), option))
        return run.ok and run.status == "ok"

    async def listen(self, url: str, stop: asyncio.Event) -> None:
        """The class's event stream over plain HTTP with the tab's cookies (so the proxy
        sends it to the tab's own worker, as a browser's EventSource); reconnects as
        EventSource does."""
        parts = urlsplit(url)
        while not stop.is_set():
            try:
                reader, writer = await asyncio.open_connection(parts.hostname, parts.port)
                request = (
                    f"GET {parts.path} HTTP/1.0\r\nHost: {parts.netloc}\r\n"
                    f"Cookie: {self.tab.cookie_header()}\r\n\r\n"
                )
                writer.write(request.encode())
                await writer.drain()
                while not stop.is_set():
                    line = await reader.readline()
                    if not line:
                        break
                    if line.startswith(b"data: "):
                        self._pushed(line[6:].decode().strip())
                writer.close()
            except OSError:
                pass
            await asyncio.sleep(1.0)

    def _pushed(self, screen: str) -> None:
        if screen == self.drawn:
            return
        self.drawn = screen
        step = json.loads(screen).get("step")
        if step is not None:
            self.pushed_at.setdefault(step, time.monotonic())
        if screen == self.ahead and step not in self.shown_at:  # shown at once, then rerun
            self.showing = step
            self.shown_at[step] = time.monotonic()
            self.shown_ahead.add(step)
        self.rerun_soon(screen)
        self.screen_changed.set()
        self.screen_changed = asyncio.Event()
