"""Central finite differences for the hand-written gradients (float64)."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np


def numerical_gradient(loss: Callable[[], float], param: np.ndarray, eps: float = 1e-6):
    """d loss / d param by central differences, perturbing `param` in place entry by entry."""
    grad = np.zeros_like(param)
    for index in np.ndindex(param.shape):
        old = param[index]
        param[index] = old + eps
        up = loss()
        param[index] = old - eps
        down = loss()
        param[index] = old
        grad[index] = (up - down) / (2 * eps)
    return grad


def relative_error(analytic: np.ndarray, numeric: np.ndarray) -> float:
    """‖analytic − numeric‖ / max(‖numeric‖, tiny)."""
    return float(np.linalg.norm(analytic - numeric) / max(np.linalg.norm(numeric), 1e-12))
