"""A hand-built English → German encoder–decoder whose heads each track one thing.

Nothing here is trained. Every word is a vector of named, readable features (meanings,
part of speech, number, formality, gender, person, language, position; see `features`),
and every head's W_Q and W_K are written by hand from a few readable score terms
("a verb looks for a noun", "“you” looks for a word of address"; see `heads`). So the
attention maps are exactly what the heads were built to do, and a teacher can point at
the head that tracks formality.

"you are tired" can be "du bist müde", "ihr seid müde" or "Sie sind müde". English "you"
is marked for neither number nor formality; words of address settle it ("you guys",
"sir", "my friend"). The encoder's “who is “you”?” head carries their number and
formality to "you", the cross-attention brings them to the decoder, and `choose_pronoun`
reads the choice off that head at `<s>`; with no such word it says the source is ambiguous.

Modules: `vocabulary` (words from assets/translation/, lookup), `features` (word
vectors), `heads` (one record per head), `model` (the blocks), `pronoun` (du/ihr/Sie),
`examples` (the sentence pairs offered on the block page).
"""

from attention.models.translation.examples import EXAMPLES, Example
from attention.models.translation.features import CONTEXT, D_MODEL, FEATURES, INDEX, START, embed
from attention.models.translation.heads import HEADS, Head, head_index, head_titles
from attention.models.translation.model import (
    TranslationModel,
    TranslationTrace,
    build_translation_model,
)
from attention.models.translation.pronoun import PronounChoice, choose_pronoun
from attention.models.translation.vocabulary import (
    ENGLISH,
    GERMAN,
    MAX_WORDS,
    VOCABULARY,
    Word,
    look_up,
    split_words,
)

__all__ = [
    "CONTEXT",
    "D_MODEL",
    "ENGLISH",
    "EXAMPLES",
    "FEATURES",
    "GERMAN",
    "HEADS",
    "INDEX",
    "MAX_WORDS",
    "START",
    "VOCABULARY",
    "Example",
    "Head",
    "PronounChoice",
    "TranslationModel",
    "TranslationTrace",
    "Word",
    "build_translation_model",
    "choose_pronoun",
    "embed",
    "head_index",
    "head_titles",
    "look_up",
    "split_words",
]
