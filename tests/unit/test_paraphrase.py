"""The paraphrase task: the shipped triplets load and keep their documented promise, the
loader refuses broken files clearly, and margins/accuracy on constructed embeddings."""

from __future__ import annotations

import numpy as np
import pytest

from attention.analysis.paraphrase import (
    MAX_CHARACTERS,
    TRIPLETS_FILE,
    ParaphraseTask,
    Triplet,
    load_paraphrase_task,
)

HEADER = "# a comment\nanchor,paraphrase,distractor\n"


def write(tmp_path, text: str, encoding: str = "utf-8"):
    path = tmp_path / "triplets.csv"
    path.write_bytes(text.encode(encoding))
    return path


def test_shipped_task_has_at_least_60_distinct_triplets():
    task = load_paraphrase_task()
    assert len(task.triplets) >= 60
    assert len({t.anchor for t in task.triplets}) == len(task.triplets)
    assert len(task.texts) == len(set(task.texts))
    assert TRIPLETS_FILE.read_text(encoding="utf-8").startswith("# Paraphrase triplets")


def test_texts_are_embedded_once_and_indexed_back():
    task = ParaphraseTask(
        (Triplet("a", "b", "c"), Triplet("b", "a", "d"))  # shared sentences
    )
    assert task.texts == ("a", "b", "c", "d")
    # embeddings: a=(1,0), b=(0.8,0.6), c=(0,1), d=(0.6,-0.8)
    embeddings = np.array([[1.0, 0.0], [0.8, 0.6], [0.0, 1.0], [0.6, -0.8]])
    # triplet 1: cos(a,b)=0.8, cos(a,c)=0 → +0.8; triplet 2: cos(b,a)=0.8, cos(b,d)=0 → +0.8
    np.testing.assert_allclose(task.margins(embeddings), [0.8, 0.8])
    flipped = embeddings.copy()
    flipped[2] = [1.0, 0.0]  # c now equals a: cos(a,c)=1 → triplet 1 fails
    np.testing.assert_allclose(task.margins(flipped), [-0.2, 0.8])
    stacked = np.stack([embeddings, flipped])
    np.testing.assert_allclose(task.accuracy(stacked), [1.0, 0.5])
    with pytest.raises(ValueError, match="4 sentences"):
        task.margins(embeddings[:3])


def test_quoted_commas_and_blank_lines_are_read(tmp_path):
    path = write(tmp_path, HEADER + '"Yes, it rained.",It did rain.,"No, it was dry."\n\n')
    (triplet,) = load_paraphrase_task(path).triplets
    assert triplet == Triplet("Yes, it rained.", "It did rain.", "No, it was dry.")


@pytest.mark.parametrize(
    ("body", "pieces"),
    [
        ("", ["first row", "anchor,paraphrase,distractor"]),
        ("anchor,paraphrase\nA,B\n", ["first row"]),
        (HEADER, ["no triplets"]),
        (HEADER + "A,B\n", ["line 3", "3 non-empty"]),
        (HEADER + "A,B,C,D\n", ["line 3", "3 non-empty"]),
        (HEADER + "A, ,C\n", ["line 3", "3 non-empty"]),
        (HEADER + "A,B,A\n", ["line 3", "differ"]),
        (HEADER + "A,B,C\nA,D,E\n", ["line 4", "twice"]),
        (HEADER + "A,B," + "x" * (MAX_CHARACTERS + 1) + "\n", ["line 3", "longer"]),
    ],
)
def test_broken_files_are_refused_with_the_place(tmp_path, body, pieces):
    with pytest.raises(ValueError) as info:
        load_paraphrase_task(write(tmp_path, body))
    for piece in pieces:
        assert piece in str(info.value)


def test_unreadable_file_is_a_value_error(tmp_path):
    with pytest.raises(ValueError, match="Cannot read"):
        load_paraphrase_task(write(tmp_path, HEADER + "é,B,C\n", encoding="latin-1"))
    with pytest.raises(ValueError, match="Cannot read"):
        load_paraphrase_task(tmp_path / "missing.csv")
