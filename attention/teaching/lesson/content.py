"""The Lesson's words from assets/lesson.toml, checked on load: every step has a title,
2–4 notice sentences, a question and its explanation; ids are unique and URL-safe."""

from __future__ import annotations

import functools
import re
import string
from collections.abc import Callable
from dataclasses import dataclass

from attention.assets import AssetError, read_toml

ASSET = "lesson.toml"
_ID = re.compile(r"^[a-z][a-z0-9_]*$")


@dataclass(frozen=True)
class StepText:
    """The sentences of one step; braces are filled with computed values."""

    id: str
    title: str
    notice: tuple[str, ...]
    try_label: str
    question: str
    because: str
    details: str = ""  # optional longer account, folded away (left out in presenter mode)

    def placeholders(self) -> set[str]:
        """Every name in braces across the step's sentences."""
        texts = (self.title, *self.notice, self.question, self.because, self.details)
        return {name for text in texts for _, name, _, _ in string.Formatter().parse(text) if name}


def parse_steps(raw: dict, source: str) -> tuple[StepText, ...]:
    """Validate the parsed TOML; an AssetError (a ValueError) names the file and the step
    at fault."""
    steps = raw.get("step")
    if not isinstance(steps, list) or not steps:
        raise AssetError(f"{source}: no [[step]] tables.")
    parsed, seen = [], set()
    for index, step in enumerate(steps, start=1):
        where = f"{source}, step {index}"
        missing = [k for k in ("id", "title", "notice", "question", "because") if k not in step]
        if missing:
            raise AssetError(f"{where}: missing {', '.join(missing)}.")
        if not _ID.match(str(step["id"])) or step["id"] in seen:
            raise AssetError(f"{where}: id {step['id']!r} is not a new lower-case name.")
        seen.add(step["id"])
        notice = step["notice"]
        if not isinstance(notice, list) or not 1 <= len(notice) <= 4:
            raise AssetError(f"{where} ({step['id']}): notice must hold 1 to 4 sentences.")
        optional = [step.get("try", ""), step.get("details", "")]
        texts = [step["title"], *notice, step["question"], step["because"], *optional]
        if not all(isinstance(t, str) for t in texts) or not all(texts[:-2]):
            raise AssetError(f"{where} ({step['id']}): every text must be a non-empty string.")
        parsed.append(
            StepText(
                step["id"],
                step["title"],
                tuple(notice),
                step.get("try", ""),
                step["question"],
                step["because"],
                step.get("details", ""),
            )
        )
    return tuple(parsed)


@functools.cache
def lesson_text() -> tuple[StepText, ...]:
    """The steps' words in lesson order."""
    return parse_steps(read_toml(ASSET), f"assets/{ASSET}")


def fill(template: str, facts: dict[str, object], escape: Callable[[str], str]) -> str:
    """The template with its braces filled: strings (tokens, the user's words) pass
    through `escape` for the medium (markdown or HTML), numbers keep their format spec."""
    shown = {k: escape(v) if isinstance(v, str) else v for k, v in facts.items()}
    return template.format(**shown)


def bold_to_html(template: str) -> str:
    """The one piece of markup the lesson's sentences use, **bold**, as HTML."""
    return re.sub(r"\*\*(.+?)\*\*", r"<strong>\1</strong>", template)
