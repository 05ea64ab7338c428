"""Parameter checks shared by the library: each failure is a ValueError that names the
parameter, the value received and what is allowed (scikit-learn style)."""

from __future__ import annotations

import numbers

import numpy as np


def check_positive_int(name: str, value: object) -> int:
    """Return `value` as an int, or raise if it is not an integer >= 1."""
    if isinstance(value, bool) or not isinstance(value, numbers.Integral) or value < 1:
        raise ValueError(f"{name} must be a positive integer (>= 1); got {value!r}.")
    return int(value)


def check_int_in_range(name: str, value: object, low: int, high: int | None = None) -> int:
    """Return `value` as an int, or raise if it is not an integer from `low` to `high`
    (inclusive; no upper bound when `high` is None)."""
    if (
        isinstance(value, bool)
        or not isinstance(value, numbers.Integral)
        or value < low
        or (high is not None and value > high)
    ):
        allowed = f">= {low}" if high is None else f"from {low} to {high}"
        raise ValueError(f"{name} must be an integer {allowed}; got {value!r}.")
    return int(value)


def check_positive_float(name: str, value: object) -> float:
    """Return `value` as a float, or raise if it is not a finite number > 0."""
    if (
        isinstance(value, bool)
        or not isinstance(value, numbers.Real)
        or not np.isfinite(value)
        or value <= 0
    ):
        raise ValueError(f"{name} must be a finite number > 0; got {value!r}.")
    return float(value)


def check_finite_array(name: str, array: np.ndarray) -> None:
    """Raise if `array` holds NaN or infinity, saying how many entries are bad."""
    finite = np.isfinite(array)
    if not finite.all():
        bad = int(array.size - np.count_nonzero(finite))
        raise ValueError(
            f"{name} must hold only finite numbers; got {bad} NaN or infinite "
            f"value(s) in an array of shape {array.shape}."
        )


def check_shape(name: str, array: np.ndarray, expected: tuple[int, ...]) -> None:
    """Raise if `array` does not have exactly the `expected` shape."""
    if array.shape != tuple(expected):
        raise ValueError(f"{name} must have shape {tuple(expected)}; got {array.shape}.")


def resolve_d_head(d_model: int, n_heads: int, d_head: int | None) -> int:
    """Return d_head, defaulting to d_model // n_heads, which must then divide evenly."""
    d_model = check_positive_int("d_model", d_model)
    n_heads = check_positive_int("n_heads", n_heads)
    if d_head is None:
        if d_model % n_heads:
            divisors = [k for k in range(1, d_model + 1) if d_model % k == 0]
            raise ValueError(
                f"d_model must be divisible by n_heads when d_head is not given; "
                f"got d_model={d_model}, n_heads={n_heads}. Pass d_head explicitly "
                f"or choose n_heads among {divisors}."
            )
        d_head = d_model // n_heads
    return check_positive_int("d_head", d_head)


def check_array(name: str, value: object, shape: tuple[int, ...], dtype: type) -> np.ndarray:
    """`value` as a finite array of `dtype` with exactly `shape` (a weight or a bias)."""
    array = np.asarray(value, dtype=dtype)
    check_shape(name, array, shape)
    check_finite_array(name, array)
    return array


def check_tokens(name: str, value: object, d_model: int, dtype: type) -> np.ndarray:
    """`value` as finite tokens of `dtype` with shape (..., n_tokens, d_model)."""
    array = np.asarray(value, dtype=dtype)
    if array.ndim < 2 or array.shape[-1] != d_model:
        raise ValueError(
            f"{name} must have shape (..., n_tokens, d_model={d_model}); got shape {array.shape}."
        )
    check_finite_array(name, array)
    return array


def check_unit_interval(name: str, value: object, shape: str, dtype: type) -> np.ndarray:
    """`value` (booleans or numbers, each in [0, 1]) as an array of `dtype`; `shape`
    describes the expected shape for the error message."""
    array = np.asarray(value)
    if array.dtype.kind not in "biuf":
        raise ValueError(
            f"{name} must be a {shape} array of booleans or numbers in [0, 1]; "
            f"got dtype {array.dtype}."
        )
    array = array.astype(dtype)
    if not np.all((array >= 0) & (array <= 1)):  # also refuses NaN
        raise ValueError(
            f"{name} ({shape}) must hold values in [0, 1]; got values from "
            f"{array.min()} to {array.max()}."
        )
    return array
