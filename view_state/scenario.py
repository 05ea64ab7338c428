"""The scenario every page shows: the sentence, the source of points and weights, and the
engine's knobs. It round-trips through the URL so a teacher can bookmark or share the exact
view; anything junk in the URL falls back to the default with a notice saying so.
Pure Python (no Streamlit), so it is unit-tested directly."""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from attention.teaching.sentences import DEFAULT_TEXT
from view_state import url_params
from view_state.url_params import (  # noqa: F401  (re-exported for the sidebar and pages)
    D_MODEL_CHOICES,
    MAX_HEADS,
    MAX_SEED,
    MAX_TEXT_CHARS,
    SOURCES,
    TEMPERATURE_RANGE,
)


@dataclass(frozen=True)
class Scenario:
    """One view of the app; field names double as URL parameter names."""

    text: str = DEFAULT_TEXT
    source: str = "toy"
    d_model: int = 64
    heads: int = 4
    d_head: int = 0  # 0 = automatic: d_model // heads (rounded down)
    full: bool = False  # full-size heads: d_head = d_model
    seed: int = 0
    temp: float = 1.0
    causal: bool = False
    positions: bool = True  # toy source: add sinusoidal position vectors
    layer: int = 1  # real source: 1-based layer whose input and heads are shown
    focus: int = 1  # index of the query token the views focus on

    @property
    def resolved_d_head(self) -> int:
        """The d_head the engine gets: full-size, chosen, or d_model // heads."""
        if self.full:
            return self.d_model
        if self.d_head:
            return self.d_head
        return max(1, self.d_model // self.heads)

    def computation(self) -> Scenario:
        """This scenario with every field its computation ignores set to the default: the
        key under which its results are cached. The focus only picks what is drawn; an
        empty sentence means the default one; the real source ignores the toy knobs; the
        trained source has its own sequence and sizes."""
        kept = {"source", "temp", "causal"} | _COMPUTED_FROM[self.source]
        values = {name: getattr(self, name) for name in kept}
        if "text" in values and not self.text.strip():
            values["text"] = DEFAULT_TEXT
        if self.source == "toy":
            values["d_head"] = self.resolved_d_head
            values["full"] = False
        return Scenario(**values)

    def d_head_note(self) -> str | None:
        """Say how d_head was chosen when the heads do not split d_model evenly."""
        if self.full or self.d_head or self.d_model % self.heads == 0:
            return None
        d = self.resolved_d_head
        if self.d_model < self.heads:
            return (
                f"{self.heads} heads of a {self.d_model}-wide embedding: d_model / heads is "
                "below 1, so each head gets d_head = 1, the least a head can have: the heads' "
                f"outputs concatenate to {self.heads} numbers, and W_O maps them back to "
                f"{self.d_model}."
            )
        return (
            f"{self.d_model} / {self.heads} heads is not a whole number, so each head gets "
            f"d_head = {d} (rounded down): the heads' outputs concatenate to "
            f"{self.heads * d} numbers, and W_O maps them back to {self.d_model}."
        )


DEFAULTS = Scenario()
SCENARIO_NAMES = tuple(f.name for f in dataclasses.fields(Scenario))  # URL parameter names
_COMPUTED_FROM = {
    "toy": {"text", "d_model", "heads", "d_head", "full", "seed", "positions"},
    "real": {"text", "layer"},
    "trained": {"seed"},
}


def parse_query(params: Mapping[str, str]) -> tuple[Scenario, list[str]]:
    """Build a Scenario from URL parameters; each junk value becomes the default and
    adds a notice. Unknown parameters are ignored."""
    values, notices = url_params.read(params, SCENARIO_NAMES)
    scenario = Scenario(**values)
    if scenario.d_head > scenario.d_model:
        notices.append(
            f"The link's d_head={scenario.d_head} is larger than d_model={scenario.d_model}; "
            "using the automatic d_head."
        )
        scenario = dataclasses.replace(scenario, d_head=0)
    return scenario, notices


def to_query(scenario: Scenario) -> dict[str, str]:
    """The URL parameters of a scenario: only the values that differ from the defaults."""
    query = {}
    for name in SCENARIO_NAMES:
        if (shown := url_params.to_url(name, getattr(scenario, name))) is not None:
            query[name] = shown
    return query


def carry_focus(
    old_spans: Sequence[tuple[int, int] | None],
    focus: int,
    new_spans: Sequence[tuple[int, int] | None],
) -> int:
    """The token of a new tokenization of the same text that covers the old focus token's
    first character (so "cat" stays in focus when words become word pieces); a token with
    no characters ([CLS], a task label) maps by position, clamped to the new length."""
    last = len(new_spans) - 1
    old = old_spans[focus] if 0 <= focus < len(old_spans) else None
    if old is None:
        return min(max(focus, 0), last)
    start = old[0]
    for index, span in enumerate(new_spans):
        if span is not None and span[0] <= start < max(span[1], span[0] + 1):
            return index
    starts = [(abs(span[0] - start), i) for i, span in enumerate(new_spans) if span is not None]
    return min(starts)[1] if starts else min(focus, last)
