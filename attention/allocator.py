"""Let the C allocator keep freed memory for reuse (glibc only; a no-op elsewhere).

By default glibc hands large freed blocks straight back to the operating system, so each
forward pass at BERT size pays for zeroing ~30 MB of fresh pages: about a third of its
time here. Call `keep_freed_memory()` once per process (the app and the benchmarks do).
"""

from __future__ import annotations

import ctypes
import ctypes.util

_M_TRIM_THRESHOLD = -1
_M_MMAP_THRESHOLD = -3
_MMAP_THRESHOLD_MAX = 32 * 1024 * 1024  # glibc's ceiling on 64-bit systems


def keep_freed_memory(trim_threshold: int = 512 * 1024 * 1024) -> bool:
    """Serve arrays up to 32 MB from the heap and keep up to `trim_threshold` bytes of
    freed heap; returns whether the allocator accepted the settings."""
    name = ctypes.util.find_library("c")
    try:
        mallopt = ctypes.CDLL(name).mallopt
    except (OSError, AttributeError, TypeError):
        return False
    mallopt.argtypes = [ctypes.c_int, ctypes.c_int]
    return bool(mallopt(_M_MMAP_THRESHOLD, _MMAP_THRESHOLD_MAX)) and bool(
        mallopt(_M_TRIM_THRESHOLD, trim_threshold)
    )
