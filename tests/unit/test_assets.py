"""The content files in assets/ and their loader: the app's own files load and feed the
code that uses them, and every kind of bad file stops with a message that names the
file and the bad entry."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from attention.assets import (
    ASSETS_DIR,
    TABLES,
    TEXT,
    TEXTS,
    AssetError,
    check_choice,
    check_fields,
    read_csv,
    read_toml,
)
from attention.experiments.training.task import TaskTexts, TwoLookupTask, load_task_texts
from attention.models.translation.examples import load_examples
from attention.models.translation.vocabulary import ENGLISH, GERMAN, load_vocabulary
from attention.teaching.sentences import Sentences, load_sentences

# -- the app's own files ----------------------------------------------------------------


def test_the_apps_files_load_and_are_used():
    assert load_sentences() == Sentences(
        "The cat sat on the mat because it was tired.",
        "Die Katze saß auf der Matte, weil sie müde war.",
    )
    assert load_task_texts() == TaskTexts(("A", "B"), ":", "?")
    english, german = load_vocabulary(ENGLISH), load_vocabulary(GERMAN)
    assert english["you"].grammar == ("2nd person",)
    assert german["Sie"].grammar == ("formal", "2nd person")
    assert german["sie"].concepts == ("she", "they", "it")
    assert len(load_examples()) >= 3
    from view_state.scenario import DEFAULT_TEXT, Scenario

    assert Scenario().text == DEFAULT_TEXT == load_sentences().text


def test_task_labels_come_from_the_file(tmp_path, monkeypatch):
    import numpy as np

    from attention.experiments.training import task

    monkeypatch.setattr(task, "TASK_TEXTS", TaskTexts(("X", "Y"), "=", "Q"))
    monkeypatch.setattr(task, "MARKS", ("", "X", "Y"))
    t = TwoLookupTask()
    batch = t.sample(np.random.default_rng(0), 1)
    labels = t.labels(batch, 0)
    marked = {label.split("=")[0] for label in labels if "=" in label}
    assert marked == {"X", "Y"} and labels[-1] == "Q"


# -- the loader -------------------------------------------------------------------------


def _write(root: Path, name: str, text: str | bytes) -> Path:
    path = root / name
    path.parent.mkdir(parents=True, exist_ok=True)
    if isinstance(text, bytes):
        path.write_bytes(text)
    else:
        path.write_text(text, encoding="utf-8")
    return path


def test_read_toml_and_csv(tmp_path):
    _write(tmp_path, "a.toml", 'x = "y"\n[[t]]\nk = ["a", "b"]\n')
    assert read_toml("a.toml", tmp_path) == {"x": "y", "t": [{"k": ["a", "b"]}]}
    _write(tmp_path, "b.csv", 'p,q\n1, two \n\n3,"fo,ur"\n')
    rows = read_csv("b.csv", ("p", "q"), tmp_path)
    assert [(r.line, r.cells) for r in rows] == [
        (2, {"p": "1", "q": "two"}),
        (4, {"p": "3", "q": "fo,ur"}),
    ]


@pytest.mark.parametrize(
    ("name", "content", "pieces"),
    [
        ("missing.toml", None, ["missing.toml", "file not found"]),
        ("bad.toml", 'x = "unclosed\n', ["bad.toml", "not valid TOML", "line 1"]),
        ("latin.toml", "x = 'Matte'\n# M\xfcde\n".encode("latin-1"), ["latin.toml", "not UTF-8"]),
        ("head.csv", "a,c\n1,2\n", ["head.csv", "line 1", "header must be a,b"]),
        ("cells.csv", "a,b\n1,2\n3,4,5\n", ["cells.csv", "line 3", "3 cells, expected 2"]),
        ("quote.csv", 'a,b\n1,"2\n', ["quote.csv", "not valid CSV"]),
    ],
)
def test_unreadable_files_name_the_file_and_line(tmp_path, name, content, pieces):
    if content is not None:
        _write(tmp_path, name, content)
    with pytest.raises(AssetError) as info:
        if name.endswith(".toml"):
            read_toml(name, tmp_path)
        else:
            read_csv(name, ("a", "b"), tmp_path)
    for piece in pieces:
        assert piece in str(info.value), str(info.value)


def test_messages_name_the_apps_folder():
    with pytest.raises(AssetError, match=r"^assets/nothing\.toml: file not found"):
        read_toml("nothing.toml")
    assert ASSETS_DIR.name == "assets" and (ASSETS_DIR / "sentences.toml").is_file()


@pytest.mark.parametrize(
    ("entry", "pieces"),
    [
        ("text", ["HERE", "expected a table"]),
        ({"a": "x", "b": ["y"], "c": [{}], "d": 1}, ["HERE", "unknown field 'd'"]),
        ({"a": "x", "b": ["y"]}, ["HERE", "missing field 'c'"]),
        ({"a": "  ", "b": ["y"], "c": []}, ["HERE", "field 'a' must be a non-empty text"]),
        ({"a": "x", "b": ["y", 2], "c": []}, ["HERE", "'b' must be a list of non-empty texts"]),
        ({"a": "x", "b": [], "c": ["t"]}, ["HERE", "'c' must be a list of tables"]),
    ],
)
def test_check_fields(entry, pieces):
    fields = {"a": TEXT, "b": TEXTS, "c": TABLES}
    with pytest.raises(AssetError) as info:
        check_fields(entry, "HERE", fields)
    for piece in pieces:
        assert piece in str(info.value)
    good = {"a": "x", "b": [], "c": [{"k": 1}]}
    assert check_fields(good, "HERE", fields) is good


def test_check_choice():
    assert check_choice("b", ("a", "b"), "letter", "HERE") == "b"
    with pytest.raises(AssetError, match="HERE: letter 'c' is not one of: a, b"):
        check_choice("c", ("a", "b"), "letter", "HERE")


# -- each content module checks its own file --------------------------------------------


@pytest.mark.parametrize(
    ("content", "pieces"),
    [
        ('text = "a"\n', ["sentences.toml", "missing field 'second'"]),
        ('text = "a"\nsecond = " b"\n', ["sentences.toml", "'second' starts or ends with blank"]),
        ('text = "a"\nsecond = "b"\nthird = "c"\n', ["unknown field 'third'"]),
        ('text = ""\nsecond = "b"\n', ["'text' must be a non-empty text"]),
    ],
)
def test_bad_sentences_file(tmp_path, content, pieces):
    _write(tmp_path, "sentences.toml", content)
    with pytest.raises(AssetError) as info:
        load_sentences(tmp_path)
    for piece in pieces:
        assert piece in str(info.value)


@pytest.mark.parametrize(
    ("marks", "separator", "query", "piece"),
    [
        ('["A"]', '":"', '"?"', "two different texts"),
        ('["A", "A"]', '":"', '"?"', "two different texts"),
        ('["A", "7"]', '":"', '"?"', "marks '7' looks like a symbol"),
        ('["A", "B"]', '":"', '"3"', "query '3' looks like a symbol"),
        ('["A", "B"]', '":"', '"B"', "the query 'B' is also a mark"),
        ('["A", "B"]', '""', '"?"', "'separator' must be a non-empty text"),
    ],
)
def test_bad_task_file(tmp_path, marks, separator, query, piece):
    _write(tmp_path, "task.toml", f"marks = {marks}\nseparator = {separator}\nquery = {query}\n")
    with pytest.raises(AssetError) as info:
        load_task_texts(tmp_path)
    assert "task.toml" in str(info.value) and piece in str(info.value)


HEADER = "word,meaning,part_of_speech,grammar\n"


@pytest.mark.parametrize(
    ("rows", "pieces"),
    [
        ("cat,cat,noun,singular\ncat,cat,noun,\n", ["line 3 (“cat”)", "already listed on line 2"]),
        ("Cat,cat,noun,\ncat,cat,noun,\n", ["line 3 (“cat”)", "already listed on line 2"]),
        ("cat,cat,nounn,\n", ["line 2 (“cat”)", "part of speech 'nounn' is not one of"]),
        ("cat,cat,noun,singular; plurall\n", ["“cat”", "grammatical feature 'plurall'"]),
        ("cat,cat,noun,singular; singular\n", ["“cat”", "listed twice"]),
        ("cat,,noun,\n", ["line 2 (“cat”)", "the meaning is empty"]),
        ("cat.,cat,noun,\n", ["“cat.”", "one word without punctuation"]),
        ("big cat,cat,noun,\n", ["“big cat”", "one word"]),
        ("", ["english.csv: no words"]),
    ],
)
def test_bad_vocabulary(tmp_path, rows, pieces):
    _write(tmp_path, "translation/english.csv", HEADER + rows)
    with pytest.raises(AssetError) as info:
        load_vocabulary(ENGLISH, tmp_path)
    assert "translation/english.csv" in str(info.value)
    for piece in pieces:
        assert piece in str(info.value), str(info.value)


def test_german_words_differing_only_in_case_are_two_words(tmp_path):
    _write(
        tmp_path, "translation/german.csv", HEADER + "Sie,you,pronoun,formal\nsie,she,pronoun,\n"
    )
    assert set(load_vocabulary(GERMAN, tmp_path)) == {"Sie", "sie"}


@pytest.mark.parametrize(
    ("content", "pieces"),
    [
        (
            '[[example]]\nenglish = "you are tired"\ngerman = "du bist müde"\n'
            '[[example]]\nenglish = "you are sleepy"\ngerman = "du bist müde"\n',
            ["examples.toml, example 2", "“sleepy”"],
        ),
        ('[[example]]\nenglish = "you"\n', ["example 1", "missing field 'german'"]),
        ("example = []\n", ["examples.toml: no examples"]),
        ('example = "x"\n', ["'example' must be a list of tables"]),
    ],
)
def test_bad_examples(tmp_path, content, pieces):
    _write(tmp_path, "translation/examples.toml", content)
    with pytest.raises(AssetError) as info:
        load_examples(tmp_path)
    for piece in pieces:
        assert piece in str(info.value), str(info.value)


def test_a_copy_of_the_apps_folder_loads(tmp_path):
    copy = tmp_path / "assets"
    shutil.copytree(ASSETS_DIR, copy)
    assert load_sentences(copy) == load_sentences()
    assert load_examples(copy) == load_examples()
