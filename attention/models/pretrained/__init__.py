"""A real pretrained encoder (all-MiniLM-L6-v2 by default) run in NumPy on the engine."""

from attention.models.pretrained.config import ModelConfig
from attention.models.pretrained.errors import ModelError, ModelIntegrityError, ModelNotFoundError
from attention.models.pretrained.model import ModelTrace, PretrainedModel, load_pretrained

__all__ = [
    "ModelConfig",
    "ModelError",
    "ModelIntegrityError",
    "ModelNotFoundError",
    "ModelTrace",
    "PretrainedModel",
    "load_pretrained",
]
