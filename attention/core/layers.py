"""The two layers a transformer block wraps around attention: LayerNorm and the
position-wise feed-forward network. Each returns its intermediates so they can be drawn."""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from scipy.special import erf as scipy_erf

from attention.core.linear import rows_times
from attention.core.validation import (
    check_array,
    check_positive_float,
    check_positive_int,
    check_tokens,
)

ACTIVATIONS = ("gelu", "relu")


# Abramowitz & Stegun 7.1.26: erf(a) ≈ 1 − t·P(t)·exp(−a²), t = 1/(1 + p·a), |error| < 1.5e-7.
_AS_P = 0.3275911
_AS_COEFFICIENTS = (1.061405429, -1.453152027, 1.421413741, -0.284496736, 0.254829592)


def erf(x: np.ndarray) -> np.ndarray:
    """The error function, as PyTorch's CPU kernels compute it: float32 arrays by A&S
    7.1.26 (vectorised; error under float32's resolution, 25× faster here than SciPy's
    element-by-element erf), everything else by scipy.special.erf to full precision."""
    x = np.asarray(x)
    if x.dtype != np.float32:
        return scipy_erf(x)
    a = np.abs(x)
    t = a * np.float32(_AS_P)
    t += 1
    np.reciprocal(t, out=t)
    poly = np.full_like(t, _AS_COEFFICIENTS[0])
    for coefficient in _AS_COEFFICIENTS[1:]:
        poly *= t
        poly += np.float32(coefficient)
    poly *= t
    np.square(a, out=a)
    np.negative(a, out=a)
    np.exp(a, out=a)
    poly *= a
    np.subtract(1, poly, out=poly)
    return np.copysign(poly, x, out=poly)


def gelu(x: np.ndarray) -> np.ndarray:
    """Exact GELU, x·Φ(x) = x·(1 + erf(x/√2))/2 (not the tanh approximation)."""
    x = np.asarray(x)
    out = erf(x * x.dtype.type(math.sqrt(0.5)))
    out += 1
    out *= x
    out *= x.dtype.type(0.5)
    return out


def relu(x: np.ndarray) -> np.ndarray:
    """max(x, 0)."""
    return np.maximum(x, 0)


@dataclass(frozen=True)
class LayerNormTrace:
    """LayerNorm's steps for (..., n, d) input: per-token mean and spread, then rescaled."""

    mean: np.ndarray  # (..., n, 1)
    std: np.ndarray  # (..., n, 1): sqrt(variance + eps)
    normalised: np.ndarray  # (..., n, d): (x - mean) / std
    output: np.ndarray  # (..., n, d): gain * normalised + bias


class LayerNorm:
    """Normalise each token's vector to mean 0 and variance 1 over its d features, then
    scale by `gain` and shift by `bias` (learned in a real model; 1 and 0 here)."""

    def __init__(self, d_model: int, eps: float = 1e-5, dtype: type = np.float32) -> None:
        self.d_model = check_positive_int("d_model", d_model)
        self.eps = check_positive_float("eps", eps)
        self.gain = np.ones(self.d_model, dtype=dtype)
        self.bias = np.zeros(self.d_model, dtype=dtype)

    def __call__(self, x: np.ndarray) -> LayerNormTrace:
        x = check_tokens("x", x, self.d_model, self.gain.dtype)
        mean = x.mean(axis=-1, keepdims=True)
        centred = x - mean
        std = np.sqrt((centred * centred).mean(axis=-1, keepdims=True) + self.eps)
        normalised = centred / std
        return LayerNormTrace(mean, std, normalised, normalised * self.gain + self.bias)

    @classmethod
    def from_weights(cls, gain: np.ndarray, bias: np.ndarray, eps: float = 1e-5) -> LayerNorm:
        """A LayerNorm with given (learned) gain and bias of shape (d_model,)."""
        gain = np.asarray(gain)
        norm = cls(gain.shape[-1], eps=eps, dtype=gain.dtype)
        norm.gain = check_array("gain", gain, (norm.d_model,), gain.dtype)
        norm.bias = check_array("bias", bias, (norm.d_model,), gain.dtype)
        return norm

    def __repr__(self) -> str:
        return f"LayerNorm(d_model={self.d_model}, eps={self.eps})"


@dataclass(frozen=True)
class FeedForwardTrace:
    """The feed-forward network's steps for (..., n, d_model) input."""

    pre_activation: np.ndarray  # (..., n, d_ff): x W_1 + b_1
    hidden: np.ndarray  # (..., n, d_ff): activation(pre_activation)
    output: np.ndarray  # (..., n, d_model): hidden W_2 + b_2


class FeedForward:
    """Position-wise feed-forward network d_model → d_ff → d_model: every token goes
    through the same two linear maps with GELU or ReLU between them, independently.

    Weights and biases are drawn like `nn.Linear` (uniform ±1/√fan_in) from `seed`,
    in float64 first so one seed gives the same network in float32 and float64.
    """

    def __init__(
        self,
        d_model: int,
        d_ff: int | None = None,
        activation: str = "gelu",
        seed: int | None = 0,
        bias: bool = True,
        dtype: type = np.float32,
    ) -> None:
        self.d_model = check_positive_int("d_model", d_model)
        self.d_ff = 4 * self.d_model if d_ff is None else check_positive_int("d_ff", d_ff)
        if activation not in ACTIVATIONS:
            raise ValueError(f"activation must be one of {ACTIVATIONS}; got {activation!r}.")
        self.activation = activation
        rng = np.random.default_rng(seed)
        limit_1, limit_2 = 1 / np.sqrt(self.d_model), 1 / np.sqrt(self.d_ff)
        w_1 = rng.uniform(-limit_1, limit_1, size=(self.d_model, self.d_ff))
        b_1 = rng.uniform(-limit_1, limit_1, size=self.d_ff)
        w_2 = rng.uniform(-limit_2, limit_2, size=(self.d_ff, self.d_model))
        b_2 = rng.uniform(-limit_2, limit_2, size=self.d_model)
        if not bias:
            b_1[:] = 0.0
            b_2[:] = 0.0
        self.w_1, self.b_1 = w_1.astype(dtype), b_1.astype(dtype)
        self.w_2, self.b_2 = w_2.astype(dtype), b_2.astype(dtype)

    @classmethod
    def from_weights(
        cls,
        w_1: np.ndarray,
        b_1: np.ndarray,
        w_2: np.ndarray,
        b_2: np.ndarray,
        activation: str = "gelu",
    ) -> FeedForward:
        """A network with given weights: w_1 (d_model, d_ff), w_2 (d_ff, d_model)."""
        w_1 = np.asarray(w_1)
        if w_1.ndim != 2:
            raise ValueError(f"w_1 must have shape (d_model, d_ff); got shape {w_1.shape}.")
        d_model, d_ff = w_1.shape
        ff = cls(d_model, d_ff, activation, seed=0, dtype=w_1.dtype)
        ff.w_1 = check_array("w_1", w_1, (d_model, d_ff), w_1.dtype)
        ff.b_1 = check_array("b_1", b_1, (d_ff,), w_1.dtype)
        ff.w_2 = check_array("w_2", w_2, (d_ff, d_model), w_1.dtype)
        ff.b_2 = check_array("b_2", b_2, (d_model,), w_1.dtype)
        return ff

    def __call__(self, x: np.ndarray) -> FeedForwardTrace:
        x = check_tokens("x", x, self.d_model, self.w_1.dtype)
        pre_activation = rows_times(x, self.w_1)
        pre_activation += self.b_1
        hidden = gelu(pre_activation) if self.activation == "gelu" else relu(pre_activation)
        output = rows_times(hidden, self.w_2)
        output += self.b_2
        return FeedForwardTrace(pre_activation, hidden, output)

    def __repr__(self) -> str:
        return (
            f"FeedForward(d_model={self.d_model}, d_ff={self.d_ff}, activation={self.activation!r})"
        )
