"""Colour measures for the palette tests, written out from their published definitions
(independent of the app's code): WCAG 2.x relative luminance and contrast ratio, CIELAB
(D65), CIEDE2000 (Sharma, Wu & Dalal 2005) and Machado, Oliveira & Fernandes' (2009)
simulation of dichromacy at severity 1.0 on linear RGB."""

from __future__ import annotations

import numpy as np

# Machado et al. 2009, Table 1, severity 1.0 (linear RGB in, linear RGB out).
MACHADO_2009 = {
    "protanopia": np.array(
        [
            [0.152286, 1.052583, -0.204868],
            [0.114503, 0.786281, 0.099216],
            [-0.003882, -0.048116, 1.051998],
        ]
    ),
    "deuteranopia": np.array(
        [
            [0.367322, 0.860646, -0.227968],
            [0.280085, 0.672501, 0.047413],
            [-0.011820, 0.042940, 0.968881],
        ]
    ),
    "tritanopia": np.array(
        [
            [1.255528, -0.076749, -0.178779],
            [-0.078411, 0.930809, 0.147602],
            [0.004733, 0.691367, 0.303900],
        ]
    ),
}
VISIONS = ("normal", *MACHADO_2009)
_SRGB_TO_XYZ = np.array(  # IEC 61966-2-1, D65
    [
        [0.4124564, 0.3575761, 0.1804375],
        [0.2126729, 0.7151522, 0.0721750],
        [0.0193339, 0.1191920, 0.9503041],
    ]
)
_D65_WHITE = np.array([0.95047, 1.0, 1.08883])


def srgb(color: str) -> np.ndarray:
    """'#RRGGBB', 'rgb(r, g, b)' or 'white' → sRGB channels in 0..1."""
    color = {"white": "#FFFFFF", "black": "#000000"}.get(color.lower(), color)
    if color.startswith("rgb("):
        return np.array([float(v) for v in color[4:-1].split(",")]) / 255.0
    return np.array([int(color[i : i + 2], 16) for i in (1, 3, 5)]) / 255.0


def linear(channels: np.ndarray) -> np.ndarray:
    """sRGB channels → linear light (the WCAG 2.x / sRGB transfer function)."""
    c = np.asarray(channels, dtype=np.float64)
    return np.where(c <= 0.04045, c / 12.92, ((c + 0.055) / 1.055) ** 2.4)


def relative_luminance(color: str) -> float:
    """WCAG 2.x relative luminance of a colour."""
    return float(linear(srgb(color)) @ np.array([0.2126, 0.7152, 0.0722]))


def contrast(a: str, b: str) -> float:
    """WCAG 2.x contrast ratio (1..21) between two colours."""
    low, high = sorted((relative_luminance(a), relative_luminance(b)))
    return (high + 0.05) / (low + 0.05)


def lab(linear_rgb: np.ndarray) -> np.ndarray:
    """Linear RGB (..., 3) → CIELAB (..., 3) under D65."""
    xyz = np.asarray(linear_rgb) @ _SRGB_TO_XYZ.T / _D65_WHITE
    f = np.where(xyz > 216 / 24389, np.cbrt(xyz), (24389 / 27 * xyz + 16) / 116)
    return np.stack(
        [116 * f[..., 1] - 16, 500 * (f[..., 0] - f[..., 1]), 200 * (f[..., 1] - f[..., 2])], -1
    )


def seen_as(colors: list[str], vision: str) -> np.ndarray:
    """The CIELAB colours a viewer with `vision` sees (dichromacy simulated on linear RGB,
    clipped to the displayable range)."""
    rgb = linear(np.array([srgb(c) for c in colors]))
    if vision != "normal":
        rgb = np.clip(rgb @ MACHADO_2009[vision].T, 0.0, 1.0)
    return lab(rgb)


def ciede2000(lab1: np.ndarray, lab2: np.ndarray) -> np.ndarray:
    """CIEDE2000 colour difference (kL = kC = kH = 1) between CIELAB colours (..., 3),
    following Sharma, Wu & Dalal (2005), equations 1–22."""
    l1, a1, b1 = np.moveaxis(np.asarray(lab1, dtype=np.float64), -1, 0)
    l2, a2, b2 = np.moveaxis(np.asarray(lab2, dtype=np.float64), -1, 0)
    c_mean = (np.hypot(a1, b1) + np.hypot(a2, b2)) / 2
    g = 0.5 * (1 - np.sqrt(c_mean**7 / (c_mean**7 + 25.0**7)))
    a1p, a2p = (1 + g) * a1, (1 + g) * a2
    c1p, c2p = np.hypot(a1p, b1), np.hypot(a2p, b2)
    h1p = np.degrees(np.arctan2(b1, a1p)) % 360
    h2p = np.degrees(np.arctan2(b2, a2p)) % 360
    chroma_zero = c1p * c2p == 0
    dh = h2p - h1p
    dh = np.where(dh > 180, dh - 360, np.where(dh < -180, dh + 360, dh))
    dh = np.where(chroma_zero, 0.0, dh)
    d_l, d_c = l2 - l1, c2p - c1p
    d_h = 2 * np.sqrt(c1p * c2p) * np.sin(np.radians(dh / 2))
    l_mean, cp_mean, h_sum = (l1 + l2) / 2, (c1p + c2p) / 2, h1p + h2p
    h_mean = np.where(
        chroma_zero,
        h_sum,
        np.where(
            np.abs(h1p - h2p) <= 180, h_sum / 2, np.where(h_sum < 360, h_sum + 360, h_sum - 360) / 2
        ),
    )
    t = (
        1
        - 0.17 * np.cos(np.radians(h_mean - 30))
        + 0.24 * np.cos(np.radians(2 * h_mean))
        + 0.32 * np.cos(np.radians(3 * h_mean + 6))
        - 0.20 * np.cos(np.radians(4 * h_mean - 63))
    )
    d_theta = 30 * np.exp(-(((h_mean - 275) / 25) ** 2))
    r_c = 2 * np.sqrt(cp_mean**7 / (cp_mean**7 + 25.0**7))
    s_l = 1 + 0.015 * (l_mean - 50) ** 2 / np.sqrt(20 + (l_mean - 50) ** 2)
    s_c = 1 + 0.045 * cp_mean
    s_h = 1 + 0.015 * cp_mean * t
    r_t = -np.sin(np.radians(2 * d_theta)) * r_c
    return np.sqrt(
        (d_l / s_l) ** 2 + (d_c / s_c) ** 2 + (d_h / s_h) ** 2 + r_t * (d_c / s_c) * (d_h / s_h)
    )


def smallest_difference(colors: list[str], vision: str) -> float:
    """The smallest CIEDE2000 difference between two of `colors` as `vision` sees them."""
    seen = seen_as(colors, vision)
    differences = ciede2000(seen[:, None, :], seen[None, :, :])
    np.fill_diagonal(differences, np.inf)
    return float(differences.min())
