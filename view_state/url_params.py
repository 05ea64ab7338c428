"""Every URL parameter of the app in one table: its name, default, bounds or choices, and
how a junk value in a link is worded. The sidebar's widgets, the Lesson's step and
presenter mode, the heads page's switches and every page widget bound with
`bind="query-params"` take their defaults and bounds from here, so no page repeats them.
Pure Python (no Streamlit): unit-tested directly."""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, MutableMapping
from dataclasses import dataclass, field, replace

from attention.analysis.head_masks import parse_heads_off
from attention.analysis.head_roles import ENTROPY, ROLES
from attention.analysis.heads_needed import SCORE_VIEWS
from attention.analysis.rank_collapse import MAX_DEPTH
from attention.experiments.training.train import TrainingConfig
from attention.models.translation import EXAMPLES, head_titles
from attention.teaching.challenges import CHALLENGES
from attention.teaching.lecture_picture import load_lecture_sentence
from attention.teaching.lesson.content import slide_count
from attention.teaching.markdown import literal
from attention.teaching.narration.attention_maps import SOURCE_WEIGHTS, TRANSLATION_WEIGHTS
from attention.teaching.narration.why_heads import PATTERN_NAMES, SCORE_LIMITS
from attention.teaching.playground import BOUND, format_points, parse_points
from attention.teaching.sentences import DEFAULT_SECOND_TEXT, DEFAULT_TEXT
from classroom.store import ClassStoreError, normalise_code

CLASS_PARAM = "class"  # the URL parameter of a live class's join code

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
MINILM_SHAPE = (6, 12)  # (layers, heads) of the real model: the bounds of `heads_off`
NO_ROLE = "nothing (weights only)"
TRAINING = TrainingConfig()  # the defaults of "Why several heads?" §4's training knobs


@dataclass(frozen=True)
class Param:
    """One URL parameter. `parse` turns the link's text into a value or raises
    ValueError; `allowed` says what is allowed, for the notice; `widget` holds the
    keyword arguments (bounds, options, default) a widget bound to it is drawn with."""

    name: str
    default: object
    parse: Callable[[str], object]
    allowed: str
    widget: dict = field(default_factory=dict)
    fallback: str = ""  # what the page does instead, when not "using the default, …"

    def read(self, raw: str) -> tuple[object, str | None]:
        """The link's value, or the default and a notice saying why."""
        try:
            return self.parse(raw), None
        except (ValueError, OverflowError):
            shown = raw if len(raw) <= 40 else raw[:40] + "…"
            fallback = self.fallback or f"using the default, {self.default!r}"
            return self.default, (
                f"The link's {self.name}={literal(repr(shown))} is not valid ({self.allowed}); "
                f"{fallback}."
            )


def whole(name: str, default: int, low: int, high: int) -> Param:
    """A whole number from low to high (a slider's min/max, or a number input's)."""

    def parse(raw: str) -> int:
        value = int(raw)
        if not low <= value <= high:
            raise ValueError
        return value

    bounds = {"min_value": low, "max_value": high, "value": default}
    return Param(name, default, parse, f"a whole number from {low} to {high}", bounds)


def number(name: str, default: float, low: float, high: float, step: float) -> Param:
    """A finite number from low to high, kept to two decimals (a float slider)."""

    def parse(raw: str) -> float:
        value = round(float(raw), 2)
        if not (math.isfinite(value) and low <= value <= high):
            raise ValueError
        return value

    bounds = {"min_value": low, "max_value": high, "value": default, "step": step}
    return Param(name, default, parse, f"a number from {low} to {high}", bounds)


def choice(name: str, default: object, options: tuple) -> Param:
    """One of `options`, written in the link as str(option); its widget arguments are a
    select slider's (options and value)."""

    def parse(raw: str) -> object:
        for option in options:
            if str(option) == raw:
                return option
        raise ValueError

    allowed = "one of " + ", ".join(map(str, options))
    return Param(name, default, parse, allowed, {"options": list(options), "value": default})


def labelled(name: str, labels: Mapping[object, str], default: object) -> Param:
    """A select box over the keys of `labels` that shows (and so writes into the link)
    each key's label: the row's values are the labels; its widget arguments are the
    select box's options (the keys), index and format_func."""
    row = choice(name, labels[default], tuple(labels.values()))
    options = list(labels)
    widget = {"options": options, "index": options.index(default), "format_func": labels.get}
    return replace(row, widget=widget)


def token_pick(name: str, default: int) -> Param:
    """A select box over the sentence's tokens, shown (and so written into the link) as
    "i · token": the row reads the index i (a bare i too). Its options come from the
    sentence, so the page gives the widget its own bounds and starting token."""

    def parse(raw: str) -> int:
        value = int(raw.split(" · ", 1)[0])
        if not 0 <= value <= MAX_FOCUS:
            raise ValueError
        return value

    allowed = f"a token written as “index · token”, index from 0 to {MAX_FOCUS}"
    return Param(name, default, parse, allowed, fallback="the page picks the token")


def flag(name: str, default: bool) -> Param:
    """On or off, written 1/0 (true/false also read)."""

    def parse(raw: str) -> bool:
        if raw in ("1", "true"):
            return True
        if raw in ("0", "false"):
            return False
        raise ValueError

    return Param(name, default, parse, "0 or 1", {"value": default})


def text(name: str, default: str, max_chars: int) -> Param:
    """Non-empty text of at most max_chars characters."""

    def parse(raw: str) -> str:
        if not raw.strip() or len(raw) > max_chars:
            raise ValueError
        return raw

    allowed = f"non-empty text of up to {max_chars} characters"
    return Param(name, default, parse, allowed, {"value": default, "max_chars": max_chars})


def _heads_off(raw: str) -> str:
    parse_heads_off(raw, *MINILM_SHAPE)
    return raw


def points(name: str, count: int) -> Param:
    """`count` playground points "x,y;…" within ±BOUND; "" (the default) means the
    model's own positions, so an untouched head stays out of the link."""

    def parse(raw: str) -> str:
        return raw if raw == "" else format_points(parse_points(raw, count))

    allowed = f"{count} point{'s' if count > 1 else ''} x,y;… within ±{BOUND:g}"
    return Param(name, "", parse, allowed, fallback="using the model's own positions")


def _class_code(raw: str) -> str:
    """A join code in capitals; "" (no class) stays ""."""
    if raw == "":
        return raw
    try:
        return normalise_code(raw)
    except ClassStoreError as error:
        raise ValueError from error


def _step_count() -> int:
    return slide_count()  # the steps and the last slide


ROWS = (
    # the sidebar's scenario (view_state/scenario.py, ui/sidebar.py)
    text("text", DEFAULT_TEXT, MAX_TEXT_CHARS),
    choice("source", "toy", tuple(SOURCES)),
    choice("d_model", 64, D_MODEL_CHOICES),
    whole("heads", 4, 1, MAX_HEADS),
    Param(
        "d_head",
        0,
        whole("d_head", 0, 0, max(D_MODEL_CHOICES)).parse,
        "0 (automatic) or a whole number up to d_model",
        {"value": 0},  # the page draws the options: 0 (auto) to d_model
    ),
    flag("full", False),
    whole("seed", 0, 0, MAX_SEED),
    number("temp", 1.0, *TEMPERATURE_RANGE, step=0.05),
    flag("causal", False),
    flag("positions", True),
    whole("layer", 1, 1, MAX_LAYER),
    Param(
        "focus", 1, whole("focus", 1, 0, MAX_FOCUS).parse, f"a token position from 0 to {MAX_FOCUS}"
    ),
    # the Lesson (ui/lesson/walk.py) and the heads page (ui/heads_needed/switches.py)
    Param(
        "step",
        1,
        whole("step", 1, 1, _step_count()).parse,
        f"a step from 1 to {_step_count()}",
        fallback="starting at step 1",
    ),
    flag("present", False),
    Param(  # a live class's join code (ui/live/projector.py); never the lecturer's secret
        CLASS_PARAM,
        "",
        _class_code,
        "a class code: 4 to 8 letters and digits, with no 0, O, 1, I or L",
        fallback="no class joined",
    ),
    flag("console", False),  # the lecturer's console window (ui/live/console.py); no secret
    Param(
        "heads_off",
        "",
        _heads_off,
        "layer.head pairs such as 1.3,2.5 of MiniLM's 6 × 12 heads",
        fallback="every head is on",
    ),
    # page widgets bound with bind="query-params"
    choice("hs_stage", "before", ("before", *(f"head {h}" for h in range(1, MAX_HEADS + 1)))),
    choice("maps_cross_weights", SOURCE_WEIGHTS, (SOURCE_WEIGHTS, TRANSLATION_WEIGHTS)),
    flag("maps_only_focus", True),  # the focus token's lines first: all of them crowd
    choice("maps_kind", "self", ("self", "cross")),
    text("maps_second", DEFAULT_SECOND_TEXT, 2000),
    choice("heads_score", "cosine", tuple(SCORE_VIEWS)),
    choice("real_role", NO_ROLE, (NO_ROLE, *ROLES, ENTROPY)),
    whole("real_layer", 1, 1, MINILM_SHAPE[0]),
    whole("real_head", 1, 1, MINILM_SHAPE[1]),
    flag("real_stretch", False),
    choice("block_norm", "post-LN", ("post-LN", "pre-LN")),
    choice("block_act", "GELU", ("GELU", "ReLU")),
    whole("block_reads_layer", 1, 1, MINILM_SHAPE[0]),
    choice("block_stack_norm", "pre-LN", ("pre-LN", "post-LN", "no LN")),
    whole("block_depth", 6, 0, MAX_DEPTH),
    text("block_source", EXAMPLES[0].english, 400),
    text("block_target", EXAMPLES[0].german, 400),
    labelled("block_cross_head", dict(enumerate(head_titles("cross"))), 0),
    token_pick("wh_query", 1),
    token_pick("wh_target_a", 0),
    token_pick("wh_target_b", 0),
    labelled("wh_pattern", PATTERN_NAMES, "permutation"),
    whole("wh_rank_n", 8, 2, 16),
    labelled("wh_penalty", SCORE_LIMITS, 0.001),
    choice("wh_d_model", TRAINING.d_model, (16, 32, 64)),
    choice("wh_heads", TRAINING.n_heads, (2, 4, 8)),
    whole("wh_symbols", TRAINING.n_symbols, 2, 16),
    whole("wh_seq_len", TRAINING.seq_len, 3, 16),
    number("wh_noise", TRAINING.noise, 0.0, 1.5, step=0.1),
    choice("wh_steps", TRAINING.steps, (300, 600, 1000, 1500, 2000, 3000)),
    # the playground (pages/playground.py, ui/playground.py), written by hand
    whole("pg_heads", 1, 1, 2),
    number("pg_temp", 1.0, *TEMPERATURE_RANGE, step=0.05),
    flag("pg_keys", False),
    whole("pg_challenge", 1, 1, len(CHALLENGES)),
    *(points(f"pg_q{head}", 1) for head in (1, 2)),
    *(points(f"pg_k{head}", len(load_lecture_sentence().tokens)) for head in (1, 2)),
)
TABLE: dict[str, Param] = {row.name: row for row in ROWS}
# Page widgets whose options follow the page's data (the number of heads, the step's
# own control) are bound under a prefix and a variable tail; Streamlit itself drops a
# value outside the options the page draws.
PREFIXES = ("maps_head_", "maps_line_heads_", "lesson_")


def row(name: str) -> Param:
    return TABLE[name]


def bounds(name: str) -> dict:
    """The widget keyword arguments (bounds, options, default) of a parameter."""
    return dict(TABLE[name].widget)


def picked(name: str) -> dict:
    """A choice row's options and default as a radio's (or plain select box's) keyword
    arguments: options and index."""
    widget = TABLE[name].widget
    return {"options": widget["options"], "index": widget["options"].index(widget["value"])}


def default(name: str) -> object:
    """A parameter's default: the value a widget starts from and a link leaves out."""
    return TABLE[name].default


def options(name: str) -> list:
    """The choices of a `choice` parameter, in order (a segmented control's or a
    selectbox's options)."""
    return list(TABLE[name].widget["options"])


def whole_range(name: str) -> range:
    """The whole numbers a `whole` parameter allows, as a selectbox's options."""
    widget = TABLE[name].widget
    return range(widget["min_value"], widget["max_value"] + 1)


def read(params: Mapping[str, str], names: tuple[str, ...]) -> tuple[dict, list[str]]:
    """The values of `names` a link holds, junk ones replaced by their defaults, and one
    notice per junk value. Parameters the link does not hold are left out."""
    values, notices = {}, []
    for name in names:
        if name in params:
            values[name], notice = TABLE[name].read(params[name])
            if notice:
                notices.append(notice)
    return values, notices


def to_url(name: str, value: object) -> str | None:
    """A value as the link writes it; None for the default (kept out of the link)."""
    if value == TABLE[name].default:
        return None
    return str(int(value)) if isinstance(value, bool) else str(value)


def write(query: MutableMapping[str, str], name: str, value: object) -> None:
    """Put a value written by hand (not by a bound widget) into the URL's parameters,
    `st.query_params`: a default leaves the link, an unchanged value is not rewritten."""
    shown = to_url(name, value)
    if shown is None:
        if name in query:
            del query[name]
    elif query.get(name) != shown:
        query[name] = shown
