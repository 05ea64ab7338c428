"""What a worker's student screens share, made once per process: the class's state read
once per push, every step's screen made ahead in a background thread, and screens drawn
one at a time. A Next reruns every screen of a worker at once (~80 in a class of 160 on
two workers), so each of these replaces ~80 of the same work."""

from __future__ import annotations

import contextlib
import threading
import time
from collections.abc import Iterator

from attention.teaching.lesson.steps import StepView
from classroom.events import screen_of
from classroom.store import PublicState
from ui.lesson import drawing, walk
from ui.lesson import screens as step_screens
from ui.lesson.step import LessonStep
from ui.live.projector import class_store
from ui.media import screen_assumed
from view_state.scenario import Scenario

# A Next reruns every student's screen at once: the first rerun in this process reads the
# class, the others, pushed the same screen within REUSE_SECONDS, draw that read.
REUSE_SECONDS = 2.0
_latest: dict[str, tuple[float, PublicState]] = {}  # process: code → (when read, state)


_latest_lock = threading.Lock()
_reading = threading.Lock()  # held while this process reads a class's state from the store


# A Next reruns every screen of a worker at once. Drawn together, ~80 script threads
# share the GIL with the event loop that sends their messages, and all of them are late;
# drawn one at a time (with main.py's short switch interval) a Next to 160 students was
# p95 0.78-1.07 s in bench_live_class against 1.09-1.29 s drawn together. A plain lock:
# a Semaphore's Python-level Condition.notify took 14 % of a screen's samples (py-spy).
_drawing = threading.Lock()
TURN_SECONDS = 2.0


def screen_state(code: str, pushed: str | None) -> PublicState:
    """The class's state to draw: this process's latest read when it is the very screen
    the push announced and younger than REUSE_SECONDS (never older than what the student
    was told), else a read of the store (which becomes the latest). One read at a time:
    a Next's reruns arrive together, and the first one's read serves the others (each
    reading its own had cost 80 store transactions per worker at once)."""
    state = _reusable(code, pushed)
    if state is not None:
        return state
    with _reading:
        state = _reusable(code, pushed)  # read while this screen waited
        if state is not None:
            return state
        state = class_store().state(code)
        with _latest_lock:
            if len(_latest) > 64:  # classes long over: forget them
                _latest.clear()
            _latest[code] = (time.monotonic(), state)
    return state


def _reusable(code: str, pushed: str | None) -> PublicState | None:
    with _latest_lock:
        read_at, latest = _latest.get(code, (0.0, None))
    fresh = time.monotonic() - read_at < REUSE_SECONDS
    if latest is not None and fresh and pushed == screen_of(latest):
        return latest
    return None


_warmed: set[Scenario] = set()  # the scenarios whose class screens this process made ahead


_warmed_lock = threading.Lock()


def step_screen(
    step: LessonStep, scenario: Scenario, number: int, revealed: bool
) -> tuple[StepView, drawing.Chart]:
    """The step's view and chart for this screen (its control as this session set it),
    shared with every screen of this process that shows the same (ui/lesson/screens.py)."""
    value = walk.control_value(step, scenario)
    return step_screens.step_chart(step, scenario, value, number, revealed)


def warm_screens(scenario: Scenario, steps: list[LessonStep]) -> threading.Thread | None:
    """Make every step's screen for `scenario` (both phases, phone and wide, each step's
    default setting) in a background thread, once per process: a Next then finds its
    screen made instead of computing a step no one has shown yet, and the class's memory
    is taken before the class rather than step by step. The thread, or None if it ran."""
    with _warmed_lock:
        if scenario in _warmed:
            return None
        if len(_warmed) > 16:  # classes long over: their screens have been replaced
            _warmed.clear()
        _warmed.add(scenario)
    thread = threading.Thread(
        target=_make_all, args=(scenario, steps), name="warm-class", daemon=True
    )
    thread.start()
    return thread


def _make_all(scenario: Scenario, steps: list[LessonStep]) -> None:
    for narrow in (True, False):
        for number, step in enumerate(steps, 1):
            with contextlib.suppress(ValueError):  # a step this sentence cannot show
                control = step.control(scenario)
                value = None if control is None else walk.unmoved_value(control, scenario)
                for revealed in (False, True):
                    with screen_assumed(narrow):
                        step_screens.step_chart(step, scenario, value, number, revealed)


@contextlib.contextmanager
def in_turn() -> Iterator[None]:
    """Draw this screen when no other screen of this worker is being drawn (at most
    TURN_SECONDS of waiting, so a screen stuck on the store holds up the others no
    longer). Not first come, first served: a screen arriving as one ends may go first."""
    taken = _drawing.acquire(timeout=TURN_SECONDS)
    try:
        yield
    finally:
        if taken:
            _drawing.release()
