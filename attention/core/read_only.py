"""Make shared arrays read-only: a model's weights or a cached result that many callers
(every session of a server) hold at once must fail loudly when one of them writes into
it, instead of silently changing what everyone else sees."""

from __future__ import annotations

import types
from typing import TypeVar

import numpy as np

T = TypeVar("T")
_OPAQUE = (type, types.ModuleType, types.FunctionType, types.MethodType, str, bytes)


def read_only(value: T) -> T:
    """Set `writeable = False` on every NumPy array reachable from `value` (through
    containers, dataclass fields and object attributes), in place, and return `value`.
    Nothing is copied; writing into any of those arrays then raises ValueError."""
    seen: set[int] = set()
    pending: list[object] = [value]
    while pending:
        item = pending.pop()
        if id(item) in seen or isinstance(item, _OPAQUE):
            continue
        seen.add(id(item))
        if isinstance(item, np.ndarray):
            item.flags.writeable = False
        elif isinstance(item, dict):
            pending.extend(item.values())
        elif isinstance(item, list | tuple | set | frozenset):
            pending.extend(item)
        elif hasattr(item, "__dict__"):
            pending.extend(vars(item).values())
    return value
