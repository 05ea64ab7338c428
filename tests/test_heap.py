"""ui.heap: garbage before the freeze is collected, what is alive is frozen, and what is
made after it is collected as usual."""

from __future__ import annotations

import gc
import weakref

from ui import heap


class _Node:
    def __init__(self) -> None:
        self.other: _Node | None = None


def _cycle() -> weakref.ref:
    first, second = _Node(), _Node()
    first.other, second.other = second, first
    return weakref.ref(first)


def test_freezing_collects_garbage_first_and_keeps_later_cycles_collectable():
    kept = _Node()
    dropped_before = _cycle()
    try:
        heap.freeze_long_lived()
        assert dropped_before() is None  # collected, not frozen
        assert not _walked(kept)  # frozen: collections no longer walk it
        dropped_after = _cycle()
        gc.collect()
        assert dropped_after() is None  # made after the freeze: collected as usual
    finally:
        gc.unfreeze()
    assert _walked(kept)


def _walked(thing: object) -> bool:
    """Whether the collector's generations hold `thing` (frozen objects are outside)."""
    return any(tracked is thing for tracked in gc.get_objects())
