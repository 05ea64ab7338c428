"""The paraphrase task (assets/paraphrase_triplets.csv): for each triplet, does a sentence
embedding put the anchor nearer its paraphrase than its look-alike distractor? Loading,
validation and the score, for any embeddings of the task's sentences."""

from __future__ import annotations

import csv
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path

import numpy as np

from attention.assets import ASSETS_DIR

TRIPLETS_FILE = ASSETS_DIR / "paraphrase_triplets.csv"
COLUMNS = ("anchor", "paraphrase", "distractor")
MAX_CHARACTERS = 200  # a sentence, not a paragraph: keeps every run short


@dataclass(frozen=True)
class Triplet:
    anchor: str
    paraphrase: str
    distractor: str


@dataclass(frozen=True)
class ParaphraseTask:
    """Triplets and the distinct sentences they use, each embedded once."""

    triplets: tuple[Triplet, ...]

    @cached_property
    def texts(self) -> tuple[str, ...]:
        """Every distinct sentence of the task, in order of first use."""
        return tuple(dict.fromkeys(s for t in self.triplets for s in _fields(t)))

    @cached_property
    def _index(self) -> np.ndarray:
        """(triplets, 3): where anchor, paraphrase and distractor sit in `texts`."""
        position = {text: i for i, text in enumerate(self.texts)}
        return np.array([[position[s] for s in _fields(t)] for t in self.triplets])

    def margins(self, embeddings: np.ndarray) -> np.ndarray:
        """cos(anchor, paraphrase) − cos(anchor, distractor) per triplet, from unit-length
        embeddings (..., len(texts), d) → (..., triplets); > 0 means passed."""
        embeddings = np.asarray(embeddings)
        if embeddings.ndim < 2 or embeddings.shape[-2] != len(self.texts):
            raise ValueError(
                f"embeddings must have shape (..., {len(self.texts)} sentences, d); "
                f"got shape {embeddings.shape}."
            )
        anchor, paraphrase, distractor = (embeddings[..., self._index[:, k], :] for k in range(3))
        return ((paraphrase - distractor) * anchor).sum(axis=-1)

    def accuracy(self, embeddings: np.ndarray) -> np.ndarray:
        """Share of triplets passed, (...) for embeddings (..., len(texts), d)."""
        return (self.margins(embeddings) > 0).mean(axis=-1)


def load_paraphrase_task(path: str | Path = TRIPLETS_FILE) -> ParaphraseTask:
    """Read and check a triplet CSV: '#' comment lines, the header row
    anchor,paraphrase,distractor, then one triplet per row of three different, non-empty
    sentences (each at most MAX_CHARACTERS), no anchor twice. ValueError says where."""
    path = Path(path)
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except (OSError, UnicodeDecodeError) as error:
        raise ValueError(f"Cannot read the paraphrase task {path}: {error}") from None
    rows = [
        (number, next(csv.reader([line])))
        for number, line in enumerate(lines, 1)
        if line.strip() and not line.startswith("#")
    ]
    if not rows or tuple(rows[0][1]) != COLUMNS:
        raise ValueError(f"{path}: the first row after the comments must be {','.join(COLUMNS)}.")
    triplets, anchors = [], set()
    for number, row in rows[1:]:
        where = f"{path}, line {number}"
        fields = tuple(cell.strip() for cell in row)
        if len(fields) != 3 or not all(fields):
            raise ValueError(f"{where}: expected 3 non-empty sentences; got {row!r}.")
        if len(set(fields)) < 3:
            raise ValueError(f"{where}: the three sentences must differ; got {row!r}.")
        if max(map(len, fields)) > MAX_CHARACTERS:
            raise ValueError(f"{where}: a sentence is longer than {MAX_CHARACTERS} characters.")
        if fields[0] in anchors:
            raise ValueError(f"{where}: the anchor {fields[0]!r} appears twice.")
        anchors.add(fields[0])
        triplets.append(Triplet(*fields))
    if not triplets:
        raise ValueError(f"{path} holds no triplets.")
    return ParaphraseTask(tuple(triplets))


def _fields(triplet: Triplet) -> tuple[str, str, str]:
    return triplet.anchor, triplet.paraphrase, triplet.distractor
