"""Which of a model's heads are switched off, as a head mask and as a short string for a
link: "1.3,2.7" means layer 1 head 3 and layer 2 head 7 are off (1-based, as the page
shows them); the empty string means every head is on."""

from __future__ import annotations

import re

import numpy as np

_HEAD = re.compile(r"^(\d{1,3})\.(\d{1,3})$")
MAX_CHARS = 1000  # far more than every head of a 6 × 12 model needs (~350 characters)


def format_heads_off(mask: np.ndarray) -> str:
    """The switched-off heads of a (layers, heads) 0/1 mask, "layer.head" 1-based, in
    layer then head order, comma-separated."""
    layers, heads = np.nonzero(np.asarray(mask) == 0)
    return ",".join(f"{layer + 1}.{head + 1}" for layer, head in zip(layers, heads, strict=True))


def parse_heads_off(text: str, layers: int, heads: int) -> np.ndarray:
    """The (layers, heads) float32 0/1 mask a `format_heads_off` string describes (a head
    named twice is simply off). ValueError says what is wrong."""
    if len(text) > MAX_CHARS:
        raise ValueError(f"text must be at most {MAX_CHARS} characters; got {len(text)}.")
    mask = np.ones((layers, heads), np.float32)
    for part in filter(None, (piece.strip() for piece in text.split(","))):
        match = _HEAD.match(part)
        if match is None:
            raise ValueError(
                f"each head in text must be written layer.head (e.g. 2.7); got {part[:20]!r}."
            )
        layer, head = int(match[1]), int(match[2])
        if not (1 <= layer <= layers and 1 <= head <= heads):
            raise ValueError(
                f"each head in text must have a layer from 1 to {layers} and a head from 1 to "
                f"{heads}; got {part!r}."
            )
        mask[layer - 1, head - 1] = 0.0
    return mask


def layer_off(mask: np.ndarray, layer: int) -> np.ndarray:
    """A copy of `mask` with every head of `layer` (0-based) off."""
    out = np.array(mask, dtype=np.float32)
    out[layer] = 0.0
    return out


def only_head(layers: int, heads: int, head: int) -> np.ndarray:
    """The mask that keeps head `head` (0-based) of every layer and nothing else."""
    mask = np.zeros((layers, heads), np.float32)
    mask[:, head] = 1.0
    return mask
