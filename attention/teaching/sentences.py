"""The sentences the app starts with, from assets/sentences.toml: the lesson's sentence
and the second sentence that asks the queries in cross-attention."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from attention.assets import TEXT, AssetError, asset_label, check_fields, read_toml

FILE = "sentences.toml"


@dataclass(frozen=True)
class Sentences:
    """The lesson's sentence and cross-attention's second sentence."""

    text: str
    second: str


def load_sentences(root: Path | None = None) -> Sentences:
    """Read and check the file: both sentences present, non-empty, nothing else."""
    label = asset_label(FILE, root)
    fields = check_fields(read_toml(FILE, root), label, {"text": TEXT, "second": TEXT})
    for key, value in fields.items():
        if value != value.strip():
            raise AssetError(f"{label}: field {key!r} starts or ends with blank space.")
    return Sentences(fields["text"], fields["second"])


SENTENCES = load_sentences()
DEFAULT_TEXT = SENTENCES.text
DEFAULT_SECOND_TEXT = SENTENCES.second
