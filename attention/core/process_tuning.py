"""Process-wide settings that keep NumPy fast on a small machine (call once per process;
the app and the benchmarks do, for every library in the process alike).

- glibc hands large freed blocks straight back to the operating system, so each forward
  pass at BERT size pays for zeroing ~30 MB of fresh pages: about a third of its time.
- NumPy and SciPy each bundle their own OpenBLAS. After a NumPy matmul, NumPy's BLAS
  threads keep spinning for a while; a SciPy LAPACK call (PCA's SVD, Procrustes) then
  fights them for the cores and a 30 µs SVD takes milliseconds. SciPy's calls here are
  all tiny, so its OpenBLAS gets one thread.
"""

from __future__ import annotations

import ctypes
import ctypes.util
from pathlib import Path

from threadpoolctl import ThreadpoolController

_M_TRIM_THRESHOLD = -1
_M_MMAP_THRESHOLD = -3
_MMAP_THRESHOLD_MAX = 32 * 1024 * 1024  # glibc's ceiling on 64-bit systems


def keep_freed_memory(trim_threshold: int = 512 * 1024 * 1024) -> bool:
    """Serve arrays up to 32 MB from the heap and keep up to `trim_threshold` bytes of
    freed heap (glibc only); returns whether the allocator accepted the settings."""
    name = ctypes.util.find_library("c")
    try:
        mallopt = ctypes.CDLL(name).mallopt
    except (OSError, AttributeError, TypeError):
        return False
    mallopt.argtypes = [ctypes.c_int, ctypes.c_int]
    return bool(mallopt(_M_MMAP_THRESHOLD, _MMAP_THRESHOLD_MAX)) and bool(
        mallopt(_M_TRIM_THRESHOLD, trim_threshold)
    )


def single_thread_scipy_blas() -> bool:
    """Give SciPy's bundled OpenBLAS one thread (NumPy's keeps all of its own)."""
    import scipy.linalg  # noqa: F401  (loads SciPy's BLAS so it can be found)

    libs = [
        lib
        for lib in ThreadpoolController().lib_controllers
        if lib.user_api == "blas" and Path(lib.filepath).parent.name.startswith("scipy")
    ]
    for lib in libs:
        lib.set_num_threads(1)
    return bool(libs)


def tune_process(blas_threads: int | None = None) -> dict[str, bool]:
    """Apply both settings, and cap NumPy's BLAS at `blas_threads` when given; says
    which ones took effect. The app passes 1: its matrices are small, every session
    shares the cores, and idle BLAS threads spinning beside the page's own work cost
    more than a second thread gains (measured: docs/speed-history.md)."""
    settings = {
        "keep_freed_memory": keep_freed_memory(),
        "scipy_blas_single": single_thread_scipy_blas(),
    }
    if blas_threads is not None:
        ThreadpoolController().limit(limits=blas_threads, user_api="blas")
        settings["blas_threads"] = True
    return settings
