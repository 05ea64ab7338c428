"""A hand-built English → German encoder–decoder whose heads each track one thing.

Nothing here is trained. Every word is embedded as a vector of named, readable features
(its meaning, part of speech, number, formality, gender, person, language) plus sinusoidal
position features, and every head's W_Q and W_K are written by hand to compare one
feature of the query word with one feature of the key word ("a verb looks for its
subject", "every word looks for a word marked for formality"). So the attention maps are
exactly what the heads were built to do, and a teacher can point at the head that tracks
formality. W_V copies the grammatical features a head gathers, and W_O adds them to
"context" features of the residual stream, so the words' own features pass through
unchanged (residual adds, no LayerNorm or feed-forward, to keep every number readable).

"you are tired" can be "du bist müde", "ihr seid müde" or "Sie sind müde": English "you"
is marked for neither number nor formality, so the encoder's and the cross-attention's
number/formality heads find nothing to settle it and spread out, while in the decoder the
verb and the adjective find du, ihr or Sie among the words already produced.

Words are looked up in a small vocabulary (`VOCABULARY`): English in lower case; German
exactly, then ignoring case when that is unambiguous ("Sie" is formal you, "sie" is
she/they). Punctuation around words is ignored. A word outside the vocabulary is an error
that names it and says which language it belongs to, if any: nothing is guessed.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass

import numpy as np

from attention.blocks import BlockTrace, DecoderBlock, EncoderBlock
from attention.engine import MultiHeadAttention

ENGLISH, GERMAN = "English", "German"
START = "<s>"
MAX_WORDS = 64

CONCEPTS = (
    "I", "you", "he", "she", "it", "we", "they", "be", "tired", "hungry", "happy",
    "not", "very", "the", "dog", "cat", "child",
)  # fmt: skip
PARTS_OF_SPEECH = ("pronoun", "verb", "adjective", "noun", "article", "adverb")
GRAMMAR = (
    "singular", "plural", "formal", "informal", "masculine", "feminine", "neuter",
    "1st person", "2nd person", "3rd person",
)  # fmt: skip
MARKERS = (ENGLISH, GERMAN, "start", "always")
N_FREQUENCIES = 7  # angular frequencies π/2^f: periods 2, 4, …, 128 tokens
POSITION = tuple(f"{kind} π/{2**f}" for f in range(N_FREQUENCIES) for kind in ("cos", "sin"))
CONTEXT = tuple(f"context: {g}" for g in GRAMMAR)
FEATURES = (*CONCEPTS, *PARTS_OF_SPEECH, *GRAMMAR, *MARKERS, *POSITION, *CONTEXT)
INDEX = {name: i for i, name in enumerate(FEATURES)}
D_MODEL = len(FEATURES)
D_HEAD = 32


@dataclass(frozen=True)
class Word:
    """One vocabulary entry: its meaning(s), part of speech and grammatical features."""

    text: str
    language: str
    concepts: tuple[str, ...]  # several when the word is ambiguous (sie = she or they)
    part_of_speech: str
    grammar: tuple[str, ...]


def _words(language: str, rows: str) -> dict[str, Word]:
    """Parse 'text concept[/concept] part grammar,grammar' lines into a vocabulary."""
    vocabulary = {}
    for line in rows.strip().splitlines():
        text, concepts, part, *grammar = line.split()
        features = tuple(g.replace("_", " ") for g in grammar[0].split(",")) if grammar else ()
        vocabulary[text] = Word(text, language, tuple(concepts.split("/")), part, features)
    return vocabulary


# English nouns carry the gender of their German translation: in a trained model that
# knowledge would live in the learned embedding of "dog".
ENGLISH_WORDS = _words(
    ENGLISH,
    """
    i       I       pronoun   singular,1st_person
    you     you     pronoun   2nd_person
    he      he      pronoun   singular,masculine,3rd_person
    she     she     pronoun   singular,feminine,3rd_person
    it      it      pronoun   singular,neuter,3rd_person
    we      we      pronoun   plural,1st_person
    they    they    pronoun   plural,3rd_person
    am      be      verb      singular,1st_person
    are     be      verb
    is      be      verb      singular,3rd_person
    tired   tired   adjective
    hungry  hungry  adjective
    happy   happy   adjective
    not     not     adverb
    very    very    adverb
    the     the     article
    dog     dog     noun      singular,masculine,3rd_person
    cat     cat     noun      singular,feminine,3rd_person
    child   child   noun      singular,neuter,3rd_person
    """,
)
GERMAN_WORDS = _words(
    GERMAN,
    """
    ich        I          pronoun    singular,1st_person
    du         you        pronoun    singular,informal,2nd_person
    ihr        you        pronoun    plural,informal,2nd_person
    Sie        you        pronoun    formal,2nd_person
    er         he         pronoun    singular,masculine,3rd_person
    sie        she/they   pronoun    3rd_person
    es         it         pronoun    singular,neuter,3rd_person
    wir        we         pronoun    plural,1st_person
    bin        be         verb       singular,1st_person
    bist       be         verb       singular,2nd_person
    ist        be         verb       singular,3rd_person
    sind       be         verb       plural
    seid       be         verb       plural,2nd_person
    müde       tired      adjective
    hungrig    hungry     adjective
    glücklich  happy      adjective
    nicht      not        adverb
    sehr       very       adverb
    der        the        article    masculine
    die        the        article    feminine
    das        the        article    neuter
    Hund       dog        noun       singular,masculine,3rd_person
    Katze      cat        noun       singular,feminine,3rd_person
    Kind       child      noun       singular,neuter,3rd_person
    """,
)
VOCABULARY = {ENGLISH: ENGLISH_WORDS, GERMAN: GERMAN_WORDS}

# Each attention's four heads, in head order, with what each one does.
HEADS = {
    "encoder": (
        ("subject", "verbs and adjectives look for their subject; other words at themselves"),
        ("article → noun", "articles look for their noun (which carries the gender)"),
        ("previous word", "every word looks at the word before it"),
        ("number & formality", "every word looks for words marked for number or formality"),
    ),
    "decoder": (
        ("subject", "verbs look for their subject; other words at themselves"),
        ("formality", "every word looks for du, ihr or Sie: a word marked for formality"),
        ("previous word", "every word looks at the word before it"),
        ("number", "every word looks for words marked singular or plural"),
    ),
    "cross": (
        ("meaning", "each German word looks for the English word with the same meaning"),
        ("article → noun", "articles look for the English noun, which says its gender"),
        ("position", "German position i looks at English position i (word order)"),
        ("number & formality", "looks for English words marked for number or formality"),
    ),
}


@dataclass(frozen=True)
class TranslationTrace:
    """The example run on one sentence pair: tokens, both blocks and their attentions."""

    source_tokens: tuple[str, ...]
    target_tokens: tuple[str, ...]  # the decoder's input: START, then the target words
    encoder: BlockTrace
    decoder: BlockTrace

    @property
    def encoder_weights(self) -> np.ndarray:
        """(heads, n_source, n_source): the encoder's self-attention."""
        return self.encoder.sublayers[0].detail.weights

    @property
    def decoder_weights(self) -> np.ndarray:
        """(heads, n_target, n_target): the decoder's causal self-attention."""
        return self.decoder.sublayers[0].detail.weights

    @property
    def cross_weights(self) -> np.ndarray:
        """(heads, n_target, n_source): target queries over source keys."""
        return self.decoder.sublayers[1].detail.weights

    def strongest_key(self, kind: str, head_name: str, query: int = -1) -> tuple[str, float]:
        """The key token that `query` (default: the last) gives most weight in the head
        `head_name` of attention `kind` ("encoder", "decoder" or "cross"), and the weight."""
        weights = {
            "encoder": self.encoder_weights,
            "decoder": self.decoder_weights,
            "cross": self.cross_weights,
        }[kind]
        keys = self.target_tokens if kind == "decoder" else self.source_tokens
        row = weights[head_index(kind, head_name), query]
        best = int(np.argmax(row))
        return keys[best], float(row[best])


def head_index(kind: str, name: str) -> int:
    """Position of the head called `name` among HEADS[kind]."""
    names = [n for n, _ in HEADS[kind]]
    if name not in names:
        raise ValueError(f"{kind} has no head {name!r}; its heads are {names}.")
    return names.index(name)


def split_words(text: str) -> list[str]:
    """Whitespace-separated words with surrounding punctuation removed."""
    words = (re.sub(r"^\W+|\W+$", "", part) for part in text.split())
    return [w for w in words if w]


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


def embed(words: list[Word], start: bool = False) -> np.ndarray:
    """(n, D_MODEL) feature vectors; `start` puts the decoder's start token first."""
    rows = [_feature_vector((), "", (), "start")] if start else []
    for word in words:
        rows.append(
            _feature_vector(word.concepts, word.part_of_speech, word.grammar, word.language)
        )
    x = np.array(rows)
    x[:, [INDEX[name] for name in POSITION]] = _positions(len(rows))
    return x


def _feature_vector(
    concepts: tuple[str, ...], part: str, grammar: tuple[str, ...], marker: str
) -> np.ndarray:
    row = np.zeros(D_MODEL)
    for concept in concepts:
        row[INDEX[concept]] = 1.0 / len(concepts)
    for name in (part, *grammar):
        if name:
            row[INDEX[name]] = 1.0
    row[INDEX[marker]] = 1.0
    row[INDEX["always"]] = 1.0
    return row


def _frequencies() -> np.ndarray:
    return np.pi / 2.0 ** np.arange(N_FREQUENCIES)


def _positions(n: int) -> np.ndarray:
    """(n, 2·N_FREQUENCIES): cos and sin of each position at each frequency."""
    angles = np.outer(np.arange(n), _frequencies())
    return np.stack([np.cos(angles), np.sin(angles)], axis=-1).reshape(n, -1)


class _HeadBuilder:
    """Collects one head's W_Q, W_K columns: each column adds one product of a query
    feature and a key feature to the score, so a score is a readable sum of terms."""

    def __init__(self) -> None:
        self.query_columns: list[np.ndarray] = []
        self.key_columns: list[np.ndarray] = []

    def link(self, query: tuple[str, ...], key: tuple[str, ...], strength: float) -> None:
        """Score += strength · (query word has any of `query`) · (key word has any of `key`)."""
        self._add(_indicator(query), _indicator(key), strength)

    def match(self, features: tuple[str, ...], strength: float) -> None:
        """Score += strength · (shared features): one column per feature."""
        for name in features:
            self._add(_indicator((name,)), _indicator((name,)), strength)

    def position(self, strength: float, shift: int = 0) -> None:
        """Score += strength · Σ_f cos(ω_f (i − shift − j)): peaks at key position
        j = i − shift (0: the same position, 1: the word before)."""
        cols = [INDEX[name] for name in POSITION]
        for f, omega in enumerate(_frequencies()):
            c, s = math.cos(omega * shift), math.sin(omega * shift)
            rotation = np.array([[c, -s], [s, c]])  # (cos, sin)(i) ↦ (cos, sin)(i − shift)
            for out in range(2):
                query, key = np.zeros(D_MODEL), np.zeros(D_MODEL)
                query[cols[2 * f : 2 * f + 2]] = rotation[:, out]
                key[cols[2 * f + out]] = 1.0
                self._add(query, key, strength)

    def _add(self, query: np.ndarray, key: np.ndarray, strength: float) -> None:
        """One column; the strength and the engine's 1/√d_head are undone half on the
        query side and half on the key side, so queries and keys get similar sizes."""
        scale = math.sqrt(strength * math.sqrt(D_HEAD))
        self.query_columns.append(query * scale)
        self.key_columns.append(key * scale)

    def projections(self) -> tuple[np.ndarray, np.ndarray]:
        """(D_MODEL, D_HEAD) W_Q, W_K, unused columns zero."""
        w_q, w_k = np.zeros((D_MODEL, D_HEAD)), np.zeros((D_MODEL, D_HEAD))
        used = len(self.query_columns)
        w_q[:, :used] = np.array(self.query_columns).T
        w_k[:, :used] = np.array(self.key_columns).T
        return w_q, w_k


def _indicator(names: tuple[str, ...]) -> np.ndarray:
    vector = np.zeros(D_MODEL)
    vector[[INDEX[name] for name in names]] = 1.0
    return vector


SHARP, CLEAR, SELF = 8.0, 2.0, 1.0  # score strengths: a feature link, a position, a fallback
NOUN_LIKE = ("pronoun", "noun")
MARKED = ("singular", "plural", "formal", "informal")


def _encoder_heads() -> list[_HeadBuilder]:
    subject, article, previous, marked = (_HeadBuilder() for _ in range(4))
    subject.link(("verb", "adjective"), NOUN_LIKE, SHARP)
    subject.position(SELF)
    article.link(("article",), ("noun",), SHARP)
    article.position(SELF)
    previous.position(CLEAR, shift=1)
    previous.position(SELF / 2)  # the first word has no previous word: it keeps to itself
    marked.link(("always",), MARKED, SHARP)
    return [subject, article, previous, marked]


def _decoder_heads() -> list[_HeadBuilder]:
    subject, formality, previous, number = (_HeadBuilder() for _ in range(4))
    subject.link(("verb",), NOUN_LIKE, SHARP)
    subject.position(SELF)
    formality.link(("always",), ("formal", "informal"), SHARP)
    previous.position(CLEAR, shift=1)
    previous.position(SELF / 2)
    number.link(("always",), ("singular", "plural"), SHARP)
    return [subject, formality, previous, number]


def _cross_heads() -> list[_HeadBuilder]:
    meaning, article, position, marked = (_HeadBuilder() for _ in range(4))
    meaning.match(CONCEPTS, SHARP)
    article.link(("article",), ("noun",), SHARP)
    article.match(CONCEPTS, 3 * SELF)  # other words: the English word with their meaning
    position.position(CLEAR)
    marked.link(("always",), MARKED, SHARP)
    return [meaning, article, position, marked]


# The grammatical features each head's values carry into the context features.
CARRIED = {
    "encoder": (("singular", "plural", "formal", "informal", "1st person", "2nd person",
                 "3rd person"), ("masculine", "feminine", "neuter"), (), MARKED),
    "decoder": (("singular", "plural", "1st person", "2nd person", "3rd person"),
                ("formal", "informal"), (), ("singular", "plural")),
    "cross": (GRAMMAR, ("masculine", "feminine", "neuter"), (), MARKED),
}  # fmt: skip


def _attention(kind: str, builders: list[_HeadBuilder]) -> MultiHeadAttention:
    """Assemble the heads; W_V copies the carried features, W_O adds them to CONTEXT."""
    n_heads = len(builders)
    w_q, w_k = (
        np.stack(arrays) for arrays in zip(*(b.projections() for b in builders), strict=True)
    )
    w_v = np.zeros((n_heads, D_MODEL, D_HEAD))
    w_o = np.zeros((n_heads * D_HEAD, D_MODEL))
    for h, carried in enumerate(CARRIED[kind]):
        for c, name in enumerate(carried):
            w_v[h, INDEX[name], c] = 1.0
            w_o[h * D_HEAD + c, INDEX[f"context: {name}"]] = 1.0
    return MultiHeadAttention.from_weights(w_q, w_k, w_v, w_o, dtype=np.float64)


@dataclass(frozen=True)
class TranslationModel:
    """One encoder block and one decoder block with the hand-built heads."""

    encoder: EncoderBlock
    decoder: DecoderBlock

    def run(self, source: str, target: str) -> TranslationTrace:
        """Run the English `source` and the German `target` (fed to the decoder after a
        start token, as during training); ValueError with a readable message on bad input."""
        source_words = look_up(source, ENGLISH)
        target_words = look_up(target, GERMAN)
        encoded = self.encoder(embed(source_words))
        decoded = self.decoder(embed(target_words, start=True), memory=encoded.output)
        return TranslationTrace(
            tuple(w.text for w in source_words),
            (START, *(w.text for w in target_words)),
            encoded,
            decoded,
        )


def build_translation_model() -> TranslationModel:
    """The hand-built example (deterministic: no random draws)."""
    encoder = EncoderBlock(_attention("encoder", _encoder_heads()), None, norm="none")
    decoder = DecoderBlock(
        _attention("decoder", _decoder_heads()),
        _attention("cross", _cross_heads()),
        None,
        norm="none",
    )
    return TranslationModel(encoder, decoder)
