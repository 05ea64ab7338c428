"""Things made once per process and read by every session, with a per-key wait: when a
class moves on, ~80 sessions of a worker ask for the same thing within a second, and one
makes it while the others wait for it (each making its own had taken a core for seconds and
left the heap's peak in the worker's memory). Not st.cache_resource: its key hashing took a
third of a class screen's own time, and it gives no per-key wait."""

from __future__ import annotations

import functools
import threading
from collections import OrderedDict
from collections.abc import Callable, Hashable
from typing import Generic, TypeVar

Made = TypeVar("Made")
_MISSING = object()


class MadeOnce(Generic[Made]):
    """The last `limit` things made, by key; a missing one is made by the first caller
    while later callers of the same key wait for it (other keys are made meanwhile), and
    a made one is read without waiting. A failed making is not kept: the next caller
    tries again."""

    def __init__(self, limit: int) -> None:
        self._limit = limit
        self._made: OrderedDict[Hashable, Made] = OrderedDict()
        self._making: dict[Hashable, threading.Lock] = {}
        self._lock = threading.Lock()  # guards _made and _making, never held while making

    def get(self, key: Hashable, make: Callable[[], Made]) -> Made:
        made = self._made.get(key, _MISSING)
        if made is not _MISSING:
            return made
        with self._lock:
            making = self._making.setdefault(key, threading.Lock())
        with making:
            made = self._made.get(key, _MISSING)  # made while this caller waited
            if made is _MISSING:
                try:
                    made = make()
                    self._keep(key, made)
                finally:
                    with self._lock:
                        self._making.pop(key, None)
        return made

    def _keep(self, key: Hashable, made: Made) -> None:
        with self._lock:
            self._made[key] = made
            while len(self._made) > self._limit:
                self._made.popitem(last=False)


def made_once_per_argument(limit: int) -> Callable[[Callable], Callable]:
    """Decorate a one-argument function of a hashable argument (a scenario) whose result
    is read-only: each result is made once (MadeOnce) for every session."""

    def decorate(function: Callable[[Hashable], Made]) -> Callable[[Hashable], Made]:
        made: MadeOnce[Made] = MadeOnce(limit)

        @functools.wraps(function)
        def shared(argument: Hashable) -> Made:
            return made.get(argument, lambda: function(argument))

        return shared

    return decorate
