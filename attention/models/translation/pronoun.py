"""du, ihr or Sie: which German "you" the English sentence asks for, read off the
cross-attention before any German word is written.

At `<s>` the cross-attention head "“you”: number and formality" looks for the English
2nd-person words and brings back the number and formality the encoder gathered there
(see heads.py). Each delivered feature is the share of the words of address that carry
it (the heads average over them). A contrast (singular/plural, formal/informal) counts
as settled when one side leads the other by more than SETTLED; the candidates are the
German "you" pronouns of the vocabulary that carry no opposite of a settled side. The
head finds "you" when more than FOUND of its weight lands on 2nd-person words.
"""

from __future__ import annotations

from dataclasses import dataclass

from attention.models.translation.heads import FORMALITY, NUMBER, YOU_FROM_SOURCE, head_index
from attention.models.translation.model import TranslationTrace
from attention.models.translation.vocabulary import GERMAN, VOCABULARY, Word

SETTLED = 0.1  # far above what stray weight brings (< 1e-6), below one cue in ten
FOUND = 0.5
YOU_PRONOUNS = tuple(
    w for w in VOCABULARY[GERMAN].values() if "you" in w.concepts and w.part_of_speech == "pronoun"
)


@dataclass(frozen=True)
class PronounChoice:
    """What the cross-attention delivered at `<s>` and the German pronouns it allows."""

    weight_on_you: float  # the head's weight at <s> on English 2nd-person words
    delivered: dict[str, float]  # singular, plural, formal, informal, as brought back
    number: str | None  # "singular", "plural", or None when not settled
    formality: str | None  # "formal", "informal", or None when not settled
    candidates: tuple[str, ...]  # German pronouns consistent with the settled sides; none
    # when the head found no 2nd-person word (see has_you)

    @property
    def has_you(self) -> bool:
        """Whether the head found a 2nd-person word to read (most of its weight on them)."""
        return self.weight_on_you > FOUND

    @property
    def pronoun(self) -> str | None:
        """The one German pronoun the source asks for, or None (ambiguous or no "you")."""
        return self.candidates[0] if len(self.candidates) == 1 else None


def _settled(delivered: dict[str, float], sides: tuple[str, str]) -> str | None:
    first, second = (delivered[side] for side in sides)
    if first - second > SETTLED:
        return sides[0]
    if second - first > SETTLED:
        return sides[1]
    return None


def _allows(word: Word, settled: list[str]) -> bool:
    """Whether `word` carries none of the opposites of the settled sides."""
    opposite = {side: pair[1 - pair.index(side)] for pair in (NUMBER, FORMALITY) for side in pair}
    return not any(opposite[side] in word.grammar for side in settled)


def choose_pronoun(trace: TranslationTrace) -> PronounChoice:
    """Read the "you" head at `<s>`: its weight on the 2nd-person words, the features it
    delivered (its output, whose coordinates are the carried features), and the pronouns
    those allow."""
    head = head_index("cross", YOU_FROM_SOURCE.name)
    weights = trace.cross_weights[head, 0]
    second_person = trace.source_positions("2nd person")
    output = trace.cross.heads[head, 0]
    delivered = {feature: float(output[c]) for c, feature in enumerate(YOU_FROM_SOURCE.carries)}
    number, formality = _settled(delivered, NUMBER), _settled(delivered, FORMALITY)
    settled = [side for side in (number, formality) if side]
    weight_on_you = float(weights[second_person].sum())
    candidates = tuple(w.text for w in YOU_PRONOUNS if _allows(w, settled))
    return PronounChoice(
        weight_on_you, delivered, number, formality, candidates if weight_on_you > FOUND else ()
    )
