"""The hand-built heads of the translation example: one record per head with its name,
what it does to every word, the terms its score is built from, and what its values carry.

A head's score for a query word and a key word is a readable sum of terms (`Link`,
`SameMeaning`, `Position`). Together the terms form one bilinear form x_qᵀ B x_k, which
`projections` factors into W_Q and W_K with one column per key feature that B uses. W_V
copies the features a head carries and W_O adds them to the query's "context: …"
features, so the words' own features pass through unchanged.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from attention.models.translation.features import (
    D_MODEL,
    INDEX,
    MEANINGS,
    N_FREQUENCIES,
    frequencies,
    indicator,
)
from attention.models.translation.vocabulary import ENGLISH, GERMAN, VOCABULARY

SHARP = 20.0  # the score of what a head is built to find
FALLBACK = 10.0  # where a word looks when it finds nothing: e^10 ≈ 22,000 × any other key
ALWAYS = ("always",)  # as a query condition: every word
NOUN_LIKE = ("pronoun", "noun")
NUMBER = ("singular", "plural")
FORMALITY = ("formal", "informal")
GENDER = ("masculine", "feminine", "neuter")
PERSON = ("1st person", "2nd person", "3rd person")


def _either(names: tuple[str, ...]) -> str:
    return " or ".join(names)


@dataclass(frozen=True)
class Link:
    """Score += strength when the query word has one of `query` (ALWAYS: any word) and the
    key word has one of `key`."""

    query: tuple[str, ...]
    key: tuple[str, ...]
    strength: float

    def form(self) -> np.ndarray:
        return self.strength * np.outer(indicator(self.query), indicator(self.key))

    def describe(self) -> str:
        key = f"the key word is marked {_either(self.key)}"
        if self.query == ALWAYS:
            return f"{self.strength:+g} if {key}"
        return f"{self.strength:+g} if the query word is marked {_either(self.query)} and {key}"


@dataclass(frozen=True)
class SameMeaning:
    """Score += strength for each meaning the query word and the key word share."""

    strength: float

    def form(self) -> np.ndarray:
        return self.strength * np.diag(indicator(MEANINGS))

    def describe(self) -> str:
        return f"{self.strength:+g} for each meaning the two words share"


@dataclass(frozen=True)
class Position:
    """Score += strength for the key `shift` positions before the query (0: the query's own
    position) and nothing for any other key: strength/64 · Σ_k w_k cos(ω_k (i − shift − j))
    from the position features (see features.py)."""

    strength: float
    shift: int = 0

    def form(self) -> np.ndarray:
        """cos(ω(i − s − j)) = cos(ω(i − s)) cos ωj + sin(ω(i − s)) sin ωj, with cos(ω(i − s))
        and sin(ω(i − s)) rotated out of the query's cos ωi and sin ωi."""
        form = np.zeros((D_MODEL, D_MODEL))
        for k, omega in enumerate(frequencies()):
            edge = k in (0, N_FREQUENCIES)  # half weight; their sines are always 0
            scale = self.strength / N_FREQUENCIES / (2 if edge else 1)
            c, s = math.cos(omega * self.shift), math.sin(omega * self.shift)
            cos_k = INDEX[f"cos {k}π/{N_FREQUENCIES}"]
            form[cos_k, cos_k] += scale * c
            if not edge:
                sin_k = INDEX[f"sin {k}π/{N_FREQUENCIES}"]
                form[sin_k, cos_k] += scale * s
                form[sin_k, sin_k] += scale * c
                form[cos_k, sin_k] -= scale * s
        return form

    def describe(self) -> str:
        if self.shift == 0:
            where = "at the query word's own position"
        elif self.shift == 1:
            where = "one position before the query word"
        else:
            where = f"{self.shift} positions before the query word"
        return f"{self.strength:+g} for the key word {where}"


Term = Link | SameMeaning | Position


@dataclass(frozen=True)
class Head:
    """One hand-built head: `does` says what it does to every word, `terms` how its score
    is built, `carries` the grammatical features its values copy into the query's context
    (from the key's context features, gathered by earlier heads, when `reads_context`)."""

    name: str
    does: str
    terms: tuple[Term, ...]
    carries: tuple[str, ...] = ()
    reads_context: bool = False

    def form(self) -> np.ndarray:
        """(D_MODEL, D_MODEL) B with score(query x, key y) = x B y."""
        return sum((term.form() for term in self.terms), np.zeros((D_MODEL, D_MODEL)))

    @property
    def built(self) -> str:
        """The score's terms in words."""
        return "; ".join(term.describe() for term in self.terms)

    @property
    def carried(self) -> str:
        """What the values bring back, in words."""
        if not self.carries:
            return "nothing (its values are zero): it only shows where it looks"
        source = "the context the encoder gathered at" if self.reads_context else "the features of"
        return f"{', '.join(self.carries)}, from {source} the words it looks at"

    def value_source(self, feature: str) -> str:
        """The key feature its values copy for the carried `feature`."""
        return f"context: {feature}" if self.reads_context else feature


def _words(language: str, *features: str) -> str:
    """The vocabulary's words with any of `features`, quoted, for the head descriptions."""
    words = [
        w.text
        for w in VOCABULARY[language].values()
        if set(features) & {*w.grammar, w.part_of_speech}
    ]
    return ", ".join(f"“{w}”" for w in words)


YOU_WORDS = _words(ENGLISH, "2nd person")
ADDRESS_WORDS = _words(ENGLISH, "address")

# The encoder head that settles du / ihr / Sie, and the cross head that reads it.
WHO_IS_YOU = Head(
    "who is “you”?",
    f"Each 2nd-person word ({YOU_WORDS}) looks for the words of address "
    f"({ADDRESS_WORDS}), sharing its weight when there are several: they say whether "
    "one person or several are spoken to, and how politely. Every other word, and a "
    f"{YOU_WORDS} with no word of address to find, looks at itself.",
    (Link(("2nd person",), ("address",), SHARP), Position(FALLBACK)),
    (*NUMBER, *FORMALITY),
)
YOU_FROM_SOURCE = Head(
    "“you”: number and formality",
    f"Every German word, <s> included, looks for the English 2nd-person words "
    f"({YOU_WORDS}), sharing its weight when there are several, and brings back the "
    f"number and formality that the encoder's “{WHO_IS_YOU.name}” head gathered there. "
    "With no 2nd-person word in the English sentence it spreads its weight evenly.",
    (Link(ALWAYS, ("2nd person",), SHARP),),
    (*NUMBER, *FORMALITY),
    reads_context=True,
)

ENCODER = (
    Head(
        "verb/adjective → noun",
        "Verbs and adjectives look for the pronouns and nouns of the sentence, sharing "
        "their weight when there are several. Every other word, and a verb or adjective "
        "with no pronoun or noun to find, looks at itself.",
        (
            Link(("verb", "adjective"), NOUN_LIKE, SHARP),
            Position(FALLBACK),
        ),
        (*NUMBER, *FORMALITY, *PERSON),
    ),
    Head(
        "article → noun",
        "Articles look for the nouns of the sentence, which carry their German gender, "
        "sharing their weight when there are several. Every other word, and an article "
        "with no noun to find, looks at itself.",
        (
            Link(("article",), ("noun",), SHARP),
            Position(FALLBACK),
        ),
        GENDER,
    ),
    Head(
        "previous word",
        "Every word looks at the word before it; the first word looks at itself.",
        (Position(SHARP, shift=1), Position(FALLBACK)),
    ),
    WHO_IS_YOU,
)

DECODER = (
    Head(
        "verb → noun",
        "Verbs look for the pronouns and nouns written before them, sharing their weight "
        "when there are several. Every other word, and a verb with none before it, looks "
        "at itself.",
        (
            Link(("verb",), NOUN_LIKE, SHARP),
            Position(FALLBACK),
        ),
        (*NUMBER, *PERSON),
    ),
    Head(
        "formality",
        "Every word looks for the words so far marked formal or informal "
        f"({_words(GERMAN, *FORMALITY)}), sharing its weight among them; with none so far, "
        "it spreads its weight evenly over the words so far, <s> included.",
        (Link(ALWAYS, FORMALITY, SHARP),),
        FORMALITY,
    ),
    Head(
        "previous word",
        "Every word looks at the word before it; <s> looks at itself.",
        (Position(SHARP, shift=1), Position(FALLBACK)),
    ),
    Head(
        "number",
        "Every word looks for the words so far marked singular or plural, sharing its weight "
        "among them; with none so far, it spreads its weight evenly over the words so far, "
        "<s> included.",
        (Link(ALWAYS, NUMBER, SHARP),),
        NUMBER,
    ),
)

CROSS = (
    Head(
        "meaning",
        "Each German word looks for the English words that share one of its meanings, "
        "sharing its weight when there are several. <s>, and a German word none of whose "
        "meanings is in the English sentence, spreads its weight evenly over the English words.",
        (SameMeaning(SHARP),),
    ),
    Head(
        "article → noun",
        "German articles look for the English nouns, which carry the German gender, "
        "sharing their weight when there are several. Every other German word, and "
        "an article with no English noun to find, looks for the English words sharing one "
        "of its meanings; <s>, and a word with neither, spreads its weight evenly.",
        (
            Link(("article",), ("noun",), SHARP),
            SameMeaning(FALLBACK),
        ),
        GENDER,
    ),
    Head(
        "position",
        "German word k looks at English word k: the word order, one step behind because "
        "<s> comes first. <s>, and a German word past the end of the English sentence, "
        "finds no English word at its place and spreads its weight over them all.",
        (Position(SHARP, shift=1),),
    ),
    YOU_FROM_SOURCE,
)

HEADS = {"encoder": ENCODER, "decoder": DECODER, "cross": CROSS}


def head_index(kind: str, name: str) -> int:
    """Position of the head called `name` among HEADS[kind]."""
    names = [head.name for head in HEADS[kind]]
    if name not in names:
        raise ValueError(f"{kind} has no head {name!r}; its heads are {names}.")
    return names.index(name)


def head_titles(kind: str) -> list[str]:
    """'1. name', '2. name', … for the heads of attention `kind`, as charts title them."""
    return [f"{h + 1}. {head.name}" for h, head in enumerate(HEADS[kind])]


def _key_features(form: np.ndarray) -> np.ndarray:
    """Indices of the key features a bilinear form uses (its non-zero columns)."""
    return np.flatnonzero(np.abs(form).max(axis=0) > 0)


def head_dimension() -> int:
    """d_head for every attention: the most key features any head's score uses."""
    return max(len(_key_features(h.form())) for heads in HEADS.values() for h in heads)


def projections(head: Head, d_head: int) -> tuple[np.ndarray, np.ndarray]:
    """(D_MODEL, d_head) W_Q, W_K with (x W_Q)·(y W_K)/√d_head = x B y: one column per key
    feature f, W_K = e_f·a and W_Q = B[:, f]·√d_head/a, with a chosen so both sides have
    the same largest entry; unused columns zero."""
    form = head.form()
    w_q, w_k = np.zeros((D_MODEL, d_head)), np.zeros((D_MODEL, d_head))
    for column, feature in enumerate(_key_features(form)):
        size = math.sqrt(np.abs(form[:, feature]).max() * math.sqrt(d_head))
        w_k[feature, column] = size
        w_q[:, column] = form[:, feature] * math.sqrt(d_head) / size
    return w_q, w_k


def values(head: Head, d_head: int) -> tuple[np.ndarray, np.ndarray]:
    """(D_MODEL, d_head) W_V copying the carried features into the head's first columns,
    and (d_head, D_MODEL) W_O adding column c to "context: carries[c]"."""
    w_v, w_o = np.zeros((D_MODEL, d_head)), np.zeros((d_head, D_MODEL))
    for column, feature in enumerate(head.carries):
        w_v[INDEX[head.value_source(feature)], column] = 1.0
        w_o[column, INDEX[f"context: {feature}"]] = 1.0
    return w_v, w_o
