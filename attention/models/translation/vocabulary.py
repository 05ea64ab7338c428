"""The translation example's two small vocabularies, read from assets/translation/
(english.csv, german.csv), and the word lookup.

A word has one or more meanings (shared across the languages: "Katze" and "cat" both
mean cat; "sie" can mean she, they or it), a part of speech and grammatical features.
English nouns carry the gender of their German translation: in a trained model that
knowledge would live in the learned embedding of "dog". The feature "address" marks the
words that say who is spoken to: the vocatives, nouns that call someone ("sir",
"my friend", "you guys"), and the numbers that count "you" ("you two", "all of you").

English is looked up in lower case; German exactly, then ignoring case when that is
unambiguous ("Sie" is formal you, "sie" is she/they/it). Punctuation around words is
ignored. A word outside the vocabulary is an error that names it and says which language
it belongs to, if any: nothing is guessed.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from attention.assets import AssetError, asset_label, check_choice, read_csv

ENGLISH, GERMAN = "English", "German"
FILES = {ENGLISH: "translation/english.csv", GERMAN: "translation/german.csv"}
COLUMNS = ("word", "meaning", "part_of_speech", "grammar")
PARTS_OF_SPEECH = (
    "pronoun", "verb", "adjective", "noun", "article", "adverb", "possessive", "numeral",
    "preposition", "conjunction", "vocative",
)  # fmt: skip
GRAMMAR = (
    "singular", "plural", "formal", "informal", "masculine", "feminine", "neuter",
    "1st person", "2nd person", "3rd person", "address",
)  # fmt: skip
MAX_WORDS = 64


@dataclass(frozen=True)
class Word:
    """One vocabulary entry: its meaning(s), part of speech and grammatical features."""

    text: str
    language: str
    concepts: tuple[str, ...]  # several when the word is ambiguous (sie = she, they or it)
    part_of_speech: str
    grammar: tuple[str, ...]


def split_words(text: str) -> list[str]:
    """Whitespace-separated words with surrounding punctuation removed."""
    words = (re.sub(r"^\W+|\W+$", "", part) for part in text.split())
    return [w for w in words if w]


def _items(cell: str, separator: str) -> tuple[str, ...]:
    return tuple(item.strip() for item in cell.split(separator) if item.strip())


def load_vocabulary(language: str, root: Path | None = None) -> dict[str, Word]:
    """One language's words, checked: each word a single word without surrounding
    punctuation and listed once, meanings separated by '/', a known part of speech,
    known grammatical features separated by ';'."""
    name = FILES[language]
    label = asset_label(name, root)
    vocabulary: dict[str, Word] = {}
    lines: dict[str, int] = {}
    for row in read_csv(name, COLUMNS, root):
        text = row.cells["word"]
        where = f"{label}, line {row.line} (“{text}”)"
        if split_words(text) != [text]:
            raise AssetError(f"{where}: a word must be one word without punctuation around it.")
        key = text.lower() if language == ENGLISH else text
        if key in vocabulary:
            raise AssetError(f"{where}: the word is already listed on line {lines[key]}.")
        concepts = _items(row.cells["meaning"], "/")
        if not concepts:
            raise AssetError(f"{where}: the meaning is empty.")
        part = check_choice(row.cells["part_of_speech"], PARTS_OF_SPEECH, "part of speech", where)
        grammar = tuple(
            check_choice(g, GRAMMAR, "grammatical feature", where)
            for g in _items(row.cells["grammar"], ";")
        )
        if len(set(grammar)) != len(grammar):
            raise AssetError(f"{where}: a grammatical feature is listed twice.")
        vocabulary[key] = Word(key, language, concepts, part, grammar)
        lines[key] = row.line
    if not vocabulary:
        raise AssetError(f"{label}: no words.")
    return vocabulary


VOCABULARY = {language: load_vocabulary(language) for language in FILES}
# Every meaning, in order of first appearance: each is one feature of the word vectors.
CONCEPTS = tuple(
    dict.fromkeys(
        concept
        for words in VOCABULARY.values()
        for word in words.values()
        for concept in word.concepts
    )
)


def look_up(text: str, language: str) -> list[Word]:
    """The sentence's words in the vocabulary; a ValueError names every word not found
    (and the language it belongs to, when it is in the other one)."""
    if language not in VOCABULARY:
        raise ValueError(f"language must be one of {tuple(VOCABULARY)}; got {language!r}.")
    words = split_words(text)
    if not words:
        raise ValueError(f"The {language} sentence is empty: type a few words.")
    if len(words) > MAX_WORDS:
        raise ValueError(
            f"The {language} sentence has {len(words)} words; this example takes at most "
            f"{MAX_WORDS}."
        )
    found = [_find(word, VOCABULARY[language]) for word in words]
    unknown = [w for w, entry in zip(words, found, strict=True) if entry is None]
    if unknown:
        raise ValueError(_unknown_message(unknown, language))
    return found


def _find(word: str, vocabulary: dict[str, Word]) -> Word | None:
    """Exact match, else a case-insensitive match if exactly one entry fits."""
    if word in vocabulary:
        return vocabulary[word]
    matches = [entry for key, entry in vocabulary.items() if key.lower() == word.lower()]
    return matches[0] if len(matches) == 1 else None


def _unknown_message(unknown: list[str], language: str) -> str:
    other = GERMAN if language == ENGLISH else ENGLISH
    in_other = [w for w in unknown if _find(w, VOCABULARY[other]) is not None]
    quoted = ", ".join(f"“{w}”" for w in dict.fromkeys(unknown))
    message = (
        f"Not in this example's {language} vocabulary: {quoted}. The example's heads are "
        f"built from hand-written word features, so it only knows these {language} words: "
        + ", ".join(VOCABULARY[language])
        + "."
    )
    if in_other:
        message += f" ({', '.join(dict.fromkeys(in_other))}: {other}, the other side.)"
    return message
