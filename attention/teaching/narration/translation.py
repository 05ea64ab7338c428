"""The sentences of the block page's translation example (§3): what each hand-built head
does, what the heads did at the words for "you", and the du / ihr / Sie choice, every
part read off the maps."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import NamedTuple

import numpy as np

from attention.models.translation.heads import WHO_IS_YOU, YOU_FROM_SOURCE, Head
from attention.models.translation.model import TranslationTrace
from attention.models.translation.pronoun import SETTLED, YOU_PRONOUNS, PronounChoice
from attention.models.translation.vocabulary import Word
from attention.teaching.markdown import literal
from attention.teaching.narration.charts import quoted
from attention.wording import percent, plural


def cross_picture_caption() -> str:
    """How to read the cross-attention picture; its ρ is the one in the chart's title,
    ρ(score, −distance), so +1 is the end where nearer always means more attention."""
    return (
        "Queries (●) come from the decoder, keys (◇) from the encoder's output. Keys are "
        "shifted to the queries' centre and both scaled to equal size before the 2-D "
        "PCA — neither changes any weight. **ρ(score, −distance)** is the rank correlation "
        "between the true score and minus the 2-D distance (+1: nearer always means more "
        "attention)."
    )


def head_list(titles: Sequence[str], heads: Sequence[Head]) -> str:
    """A bullet per hand-built head: its title and what it does to every word."""
    return "\n".join(
        f"- **{literal(title)}**: {literal(head.does)}"
        for title, head in zip(titles, heads, strict=True)
    )


def head_construction(titles: Sequence[str], heads: Sequence[Head]) -> str:
    """A bullet per head: its score terms and what its values carry."""
    return "\n".join(
        f"- **{literal(title)}** — score: {literal(head.built)}. Values carry: "
        f"{literal(head.carried)}."
        for title, head in zip(titles, heads, strict=True)
    )


def vocabulary_lines(language: str, words: Mapping[str, Word]) -> tuple[str, str]:
    """Two lines about one language's vocabulary: every word, then its words of address."""
    address = [w.text for w in words.values() if "address" in w.grammar]
    return (
        f"**{language}:** " + literal(", ".join(words)),
        f"*{language} words of address:* " + literal(", ".join(address)),
    )


class YouReading(NamedTuple):
    """Where one English 2nd-person word puts most of its weight in the "who is you?"
    head: its position, the word, the key it favours and that key's weight."""

    position: int
    word: str
    strongest: str
    weight: float


def you_readings(example: TranslationTrace) -> list[YouReading]:
    """The "who is you?" head's strongest key at every 2nd-person word of the source."""
    readings = []
    for i in example.source_positions("2nd person"):
        strongest, weight = example.strongest_key("encoder", WHO_IS_YOU.name, query=i)
        readings.append(YouReading(i, example.source_tokens[i], strongest, weight))
    return readings


def you_remark(readings: Sequence[YouReading], head_name: str = WHO_IS_YOU.name) -> str:
    """What the encoder's "who is you?" head did at each 2nd-person word."""
    name = literal(head_name)
    if not readings:
        return (
            f"This sentence has no 2nd-person word, so the **{name}** head has nothing to settle."
        )
    remarks = []
    for r in readings:
        if r.strongest == r.word:
            remarks.append(
                f"“{literal(r.word)}” (word {r.position + 1}) finds no word of address and "
                f"keeps **{percent(r.weight)}** of its weight on itself"
            )
        else:
            remarks.append(
                f"“{literal(r.word)}” (word {r.position + 1}) puts **{percent(r.weight)}** of "
                f"its weight on **{literal(r.strongest)}**"
            )
    return f"Here, in the **{name}** head: " + "; ".join(remarks) + "."


def formality_remark(word: str, weight: float) -> str:
    """Where the decoder's formality head looks from the last word written."""
    return (
        f"Here the **formality** head at the last word puts **{percent(weight)}** of its weight "
        f"on **{literal(word)}**."
    )


def listing(words: Sequence[str], last: str) -> str:
    """'**a**', '**a** or **b**', '**a**, **b** and **c**' (with `last` = "or"/"and")."""
    quoted = [f"**{literal(w)}**" for w in words]
    return quoted[0] if len(quoted) == 1 else ", ".join(quoted[:-1]) + f" {last} " + quoted[-1]


def pronoun_decision(choice: PronounChoice, target_tokens: Sequence[str]) -> str:
    """The du / ihr / Sie choice in words, every part computed from the cross map, then
    how the German typed compares with it."""
    name = literal(YOU_FROM_SOURCE.name)
    if not choice.has_you:
        return (
            f"At `<s>` the **{name}** head finds no English 2nd-person word: "
            f"{percent(choice.weight_on_you)} of its weight lands on one, so it spreads out and "
            "there is no du, ihr or Sie to choose."
        )
    brought = ", ".join(f"{feature} {value:.2f}" for feature, value in choice.delivered.items())
    settled = "; ".join(
        f"{what}: **{side}**" if side else f"{what}: not settled"
        for what, side in (("number", choice.number), ("formality", choice.formality))
    )
    text = (
        f"At `<s>`, before any German word is written, the **{name}** head puts "
        f"**{percent(choice.weight_on_you)}** of its weight on the English 2nd-person words and "
        f"brings back {brought}. A side counts as settled when it leads the other by more "
        f"than {SETTLED:g}: {settled}. "
    )
    if choice.pronoun:
        text += f"So the English sentence asks for **{literal(choice.pronoun)}**."
    else:
        allowed = listing(choice.candidates, "and")
        text += f"So the English sentence does not settle it: it allows {allowed}."
    return text + " " + german_remark(choice, target_tokens)


def german_remark(choice: PronounChoice, target_tokens: Sequence[str]) -> str:
    """How the German typed compares with the choice."""
    you_words = {w.text for w in YOU_PRONOUNS}
    used = tuple(dict.fromkeys(t for t in target_tokens if t in you_words))
    if not used:
        return "Your German uses none of them."
    ruled_out = tuple(w for w in used if w not in choice.candidates)
    if ruled_out:
        return (
            f"Your German uses {listing(ruled_out, 'and')}, which the English sentence rules out."
        )
    if choice.pronoun:
        return f"Your German uses {listing(used, 'and')}, as the English sentence asks."
    fits = "is one of them" if len(used) == 1 else "are among them"
    return (
        f"Your German's {listing(used, 'and')} {fits}: that choice came from outside the "
        "English sentence."
    )


# The charts' text alternatives ------------------------------------------------------


def maps_summary(
    titles: Sequence[str],
    query_tokens: Sequence[str],
    key_tokens: Sequence[str],
    weights: np.ndarray,
    allowed: np.ndarray | None = None,
) -> str:
    """One attention's maps (heads, n_q, n_k): their size and each head's strongest cell
    (ties: see _strongest_cell). With a mask `allowed` (n_q, n_k), a query that may see
    one key only (a causal map's first row) has no choice: it is named as forced and
    left out of the strongest cells."""
    heads, n_q, n_k = np.shape(weights)
    size = (
        f"{heads} {plural(heads, 'map')} of {n_q} {plural(n_q, 'query', 'queries')} (rows) × "
        f"{n_k} {plural(n_k, 'key')} (columns)."
    )
    choosing = np.ones(n_q, dtype=bool) if allowed is None else np.sum(allowed, axis=1) > 1
    forced = _forced_rows(query_tokens, key_tokens, allowed, choosing)
    if not choosing.any():
        return f"{size} {forced}"
    rows = np.flatnonzero(choosing)
    self_links = list(query_tokens) == list(key_tokens)
    strongest = "; ".join(
        f"{literal(title)}: {quoted(query_tokens[q])} → {quoted(key_tokens[k])} {percent(w[q, k])}"
        for title, w in zip(titles, np.asarray(weights), strict=True)
        for q, k in [_strongest_cell(w, rows, self_links)]
    )
    among = "" if choosing.all() else " among the queries with a choice"
    ties = " (of equal ones, a link to another word, then the later query)" if self_links else ""
    return " ".join(
        part
        for part in (size, forced, f"Strongest weight{among} in each{ties}: {strongest}.")
        if part
    )


def _strongest_cell(weights: np.ndarray, rows: np.ndarray, self_links: bool) -> tuple[int, int]:
    """(query, key) of the largest weight, as a summary shows it (a whole percent),
    within the query `rows`. Hand-built heads tie at 100 % often; a tie goes to a link
    to another word over one to itself (when `self_links`: keys are the queries), then to
    the later query, which had more keys to choose from."""
    q, k = np.meshgrid(rows, np.arange(weights.shape[1]), indexing="ij")
    q, k = q.ravel(), k.ravel()
    shown = np.round(weights[q, k] * 100)
    elsewhere = (q != k) if self_links else np.ones_like(q, dtype=bool)
    best = np.lexsort((q, elsewhere, shown))[-1]  # the last key sorts first
    return int(q[best]), int(k[best])


def _forced_rows(
    query_tokens: Sequence[str],
    key_tokens: Sequence[str],
    allowed: np.ndarray | None,
    choosing: np.ndarray,
) -> str:
    """The sentence on the queries the mask leaves one key (or none): every head puts
    all of such a query's weight there, so its row says nothing about the heads."""
    if allowed is None or choosing.all():
        return ""
    parts = []
    for q in np.flatnonzero(~choosing):
        seen = np.flatnonzero(allowed[q])
        if len(seen):
            key = key_tokens[int(seen[0])]
            where = "itself" if key == query_tokens[q] and seen[0] == q else quoted(key)
            parts.append(
                f"row {q + 1} ({quoted(query_tokens[q])}) may see only {where}, so every head "
                "puts all its weight there"
            )
        else:
            parts.append(f"row {q + 1} ({quoted(query_tokens[q])}) may see no key")
    text = "; ".join(parts)
    return text[0].upper() + text[1:] + ": forced by the mask, not chosen by the head."


def joint_summary(
    title: str, query_tokens: Sequence[str], key_tokens: Sequence[str], weights: np.ndarray
) -> str:
    """One cross head's queries and keys in one picture: each query's heaviest key (the
    widest line from it)."""
    weights = np.asarray(weights)
    lines = ", ".join(
        f"{quoted(q)} → {quoted(key_tokens[int(np.argmax(row))])} {percent(row.max())}"
        for q, row in zip(query_tokens, weights, strict=True)
    )
    return (
        f"{literal(title)}: {len(query_tokens)} German queries (●) and {len(key_tokens)} "
        f"English keys (◇) in 2-D. Each query's widest line: {lines}."
    )
