"""The sizes of a BERT-style encoder, read from its config.json (nothing hard-coded)."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

from attention.models.pretrained.errors import ModelError

_REQUIRED = (
    "num_hidden_layers",
    "num_attention_heads",
    "hidden_size",
    "intermediate_size",
    "vocab_size",
    "max_position_embeddings",
)


@dataclass(frozen=True)
class ModelConfig:
    """What the forward pass and the pages need to know about the encoder."""

    layers: int
    heads: int
    d_model: int
    d_head: int
    d_ff: int
    vocab_size: int
    max_positions: int
    layer_norm_eps: float
    name: str


def read_config(path: Path, name: str) -> ModelConfig:
    """Parse config.json at `path`; refuse anything the NumPy BERT forward pass cannot run."""
    try:
        raw = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as error:
        raise ModelError(f"Cannot read the model configuration {path}: {error}") from None
    missing = [key for key in _REQUIRED if not isinstance(raw.get(key), int)]
    if missing:
        raise ModelError(f"{path} lacks the integer setting(s) {', '.join(missing)}.")
    unsupported = {
        "model_type": (raw.get("model_type", "bert"), "bert"),
        "hidden_act": (raw.get("hidden_act", "gelu"), "gelu"),
        "position_embedding_type": (raw.get("position_embedding_type", "absolute"), "absolute"),
    }
    for key, (value, allowed) in unsupported.items():
        if value != allowed:
            raise ModelError(
                f"{path}: {key}={value!r} is not supported; Head Spaces runs BERT encoders "
                f"with {key}={allowed!r}."
            )
    d_model, heads = raw["hidden_size"], raw["num_attention_heads"]
    if d_model % heads:
        raise ModelError(f"{path}: hidden_size {d_model} is not divisible by {heads} heads.")
    return ModelConfig(
        layers=raw["num_hidden_layers"],
        heads=heads,
        d_model=d_model,
        d_head=d_model // heads,
        d_ff=raw["intermediate_size"],
        vocab_size=raw["vocab_size"],
        max_positions=raw["max_position_embeddings"],
        layer_norm_eps=float(raw.get("layer_norm_eps", 1e-12)),
        name=name,
    )
