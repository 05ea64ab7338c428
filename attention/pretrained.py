"""Public entry point for the real pretrained encoder (as the README shows it:
`from attention.pretrained import load_pretrained`); the code lives in
`attention.models.pretrained`."""

from attention.models.pretrained import (
    ModelConfig,
    ModelError,
    ModelIntegrityError,
    ModelNotFoundError,
    ModelTrace,
    PretrainedModel,
    load_pretrained,
)

__all__ = [
    "ModelConfig",
    "ModelError",
    "ModelIntegrityError",
    "ModelNotFoundError",
    "ModelTrace",
    "PretrainedModel",
    "load_pretrained",
]
