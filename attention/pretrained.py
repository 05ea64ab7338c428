"""Public entry point for the real pretrained encoder (as the README shows it:
`from attention.pretrained import load_pretrained`); the code lives in
`attention.models.pretrained`."""

from attention.models import pretrained as _package
from attention.models.pretrained import *  # noqa: F403  (the package's public names)

__all__ = _package.__all__
