"""The scenario every page shows: the sentence, the source of points and weights, and the
engine's knobs. It round-trips through the URL so a teacher can bookmark or share the exact
view; anything junk in the URL falls back to the default with a notice saying so.
Pure Python (no Streamlit), so it is unit-tested directly."""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

from attention.teaching.sentences import DEFAULT_TEXT

MAX_TEXT_CHARS = 5000
D_MODEL_CHOICES = (2, 4, 8, 12, 16, 24, 32, 48, 64, 96, 128, 192, 256, 384)
MAX_HEADS = 16
MAX_SEED = 99_999
MAX_FOCUS = 511  # a focus past the last token falls back to the last token
TEMPERATURE_RANGE = (0.1, 5.0)
SOURCES = {
    "toy": "Toy: random weights",
    "real": "Real: a MiniLM layer",
    "trained": "Trained: the small model of page 3",
}
MAX_LAYER = 48  # a URL bound only: the sidebar clamps to the loaded model's layer count


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
        return (
            f"{self.d_model} / {self.heads} heads is not a whole number, so each head gets "
            f"d_head = {d} (rounded down): the heads' outputs concatenate to "
            f"{self.heads * d} numbers, and W_O maps them back to {self.d_model}."
        )


DEFAULTS = Scenario()
_COMPUTED_FROM = {
    "toy": {"text", "d_model", "heads", "d_head", "full", "seed", "positions"},
    "real": {"text", "layer"},
    "trained": {"seed"},
}


def _int_in(low: int, high: int) -> Callable[[str], int]:
    def parse(raw: str) -> int:
        value = int(raw)
        if not low <= value <= high:
            raise ValueError
        return value

    return parse


def _choice(options: tuple) -> Callable[[str], object]:
    def parse(raw: str) -> object:
        for option in options:
            if str(option) == raw:
                return option
        raise ValueError

    return parse


def _bool(raw: str) -> bool:
    if raw in ("1", "true"):
        return True
    if raw in ("0", "false"):
        return False
    raise ValueError


def _temperature(raw: str) -> float:
    value = round(float(raw), 2)
    low, high = TEMPERATURE_RANGE
    if not (math.isfinite(value) and low <= value <= high):
        raise ValueError
    return value


def _text(raw: str) -> str:
    if not raw.strip() or len(raw) > MAX_TEXT_CHARS:
        raise ValueError
    return raw


PARSERS: dict[str, Callable[[str], object]] = {
    "text": _text,
    "source": _choice(tuple(SOURCES)),
    "d_model": _choice(D_MODEL_CHOICES),
    "heads": _int_in(1, MAX_HEADS),
    "d_head": _int_in(0, max(D_MODEL_CHOICES)),
    "full": _bool,
    "seed": _int_in(0, MAX_SEED),
    "temp": _temperature,
    "causal": _bool,
    "positions": _bool,
    "layer": _int_in(1, MAX_LAYER),
    "focus": _int_in(0, MAX_FOCUS),
}
ALLOWED = {
    "text": f"non-empty text of up to {MAX_TEXT_CHARS} characters",
    "source": " or ".join(SOURCES),
    "d_model": "one of " + ", ".join(map(str, D_MODEL_CHOICES)),
    "heads": f"a whole number from 1 to {MAX_HEADS}",
    "d_head": "0 (automatic) or a whole number up to d_model",
    "full": "0 or 1",
    "seed": f"a whole number from 0 to {MAX_SEED}",
    "temp": f"a number from {TEMPERATURE_RANGE[0]} to {TEMPERATURE_RANGE[1]}",
    "causal": "0 or 1",
    "positions": "0 or 1",
    "layer": f"a whole number from 1 to {MAX_LAYER}",
    "focus": f"a token position from 0 to {MAX_FOCUS}",
}


def parse_query(params: Mapping[str, str]) -> tuple[Scenario, list[str]]:
    """Build a Scenario from URL parameters; each junk value becomes the default and
    adds a notice. Unknown parameters are ignored."""
    values: dict[str, object] = {}
    notices = []
    for name, parse in PARSERS.items():
        if name not in params:
            continue
        raw = params[name]
        try:
            values[name] = parse(raw)
        except (ValueError, OverflowError):
            default = getattr(DEFAULTS, name)
            shown = raw if len(raw) <= 40 else raw[:40] + "…"
            notices.append(
                f"The link's {name}={shown!r} is not valid ({ALLOWED[name]}); "
                f"using the default, {default!r}."
            )
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
    for field in dataclasses.fields(Scenario):
        value = getattr(scenario, field.name)
        if value != getattr(DEFAULTS, field.name):
            query[field.name] = str(int(value)) if isinstance(value, bool) else str(value)
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
