"""The sentence pairs the block page offers, from assets/translation/examples.toml,
checked on load: every word of both sentences is in the vocabulary."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from attention.assets import TABLES, TEXT, AssetError, asset_label, check_fields, read_toml
from attention.models.translation.vocabulary import ENGLISH, GERMAN, look_up

FILE = "translation/examples.toml"


@dataclass(frozen=True)
class Example:
    """An English sentence and its German translation."""

    english: str
    german: str

    @property
    def label(self) -> str:
        """How the example is offered in a menu: 'English → German'."""
        return f"{self.english} → {self.german}"


def load_examples(root: Path | None = None) -> tuple[Example, ...]:
    """The file's [[example]] tables in order; at least one."""
    label = asset_label(FILE, root)
    data = check_fields(read_toml(FILE, root), label, {"example": TABLES})
    examples = []
    for number, entry in enumerate(data["example"], start=1):
        where = f"{label}, example {number}"
        fields = check_fields(entry, where, {"english": TEXT, "german": TEXT})
        for language, text in ((ENGLISH, fields["english"]), (GERMAN, fields["german"])):
            try:
                look_up(text, language)
            except ValueError as error:
                raise AssetError(f"{where}: {error}") from None
        examples.append(Example(fields["english"], fields["german"]))
    if not examples:
        raise AssetError(f"{label}: no examples.")
    return tuple(examples)


EXAMPLES = load_examples()
