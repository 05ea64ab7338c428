"""The Lesson's words from assets/lesson.toml, checked on load: every step has a title,
1–4 notice sentences, a question, its explanation and the lecturer's speaker notes; ids
are unique and URL-safe. The last slide has a title, notes and the pages to go to next."""

from __future__ import annotations

import functools
import re
import string
from collections.abc import Callable
from dataclasses import dataclass

from attention.assets import AssetError, read_toml

ASSET = "lesson.toml"
_ID = re.compile(r"^[a-z][a-z0-9_]*$")
_PAGE = re.compile(r"^pages/[a-z_]+\.py$")
# The step picker's entry ("13. " and the title) fits its input: 247 px beside the
# sidebar at 1280 px, about 37 characters (320 px on a 390-px phone); a longer title
# needs a short one.
SHORT_TITLE_CHARS = 32


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
    notes: str = ""  # speaker notes for the lecturer's console (required in the asset)
    short: str = ""  # the title in at most SHORT_TITLE_CHARS, when the title is longer

    @property
    def short_title(self) -> str:
        """The title as the step picker shows it: whole, in SHORT_TITLE_CHARS."""
        return self.short or self.title

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
        required = ("id", "title", "notice", "question", "because", "notes")
        missing = [k for k in required if k not in step]
        if missing:
            raise AssetError(f"{where}: missing {', '.join(missing)}.")
        if not _ID.match(str(step["id"])) or step["id"] in seen:
            raise AssetError(f"{where}: id {step['id']!r} is not a new lower-case name.")
        seen.add(step["id"])
        notice = step["notice"]
        if not isinstance(notice, list) or not 1 <= len(notice) <= 4:
            raise AssetError(f"{where} ({step['id']}): notice must hold 1 to 4 sentences.")
        optional = [step.get("try", ""), step.get("details", ""), step.get("short", "")]
        texts = [step["title"], *notice, step["question"], step["because"], step["notes"]]
        texts += optional
        if not all(isinstance(t, str) for t in texts) or not all(texts[:-3]):
            raise AssetError(f"{where} ({step['id']}): every text must be a non-empty string.")
        _check_short(step, f"{where} ({step['id']})")
        parsed.append(
            StepText(
                step["id"],
                step["title"],
                tuple(notice),
                step.get("try", ""),
                step["question"],
                step["because"],
                step.get("details", ""),
                step["notes"],
                step.get("short", ""),
            )
        )
    return tuple(parsed)


def _check_short(entry: dict, where: str) -> None:
    """A title longer than SHORT_TITLE_CHARS comes with a short one that is not."""
    if len(entry.get("short") or entry["title"]) > SHORT_TITLE_CHARS:
        raise AssetError(
            f"{where}: the title needs a short of at most {SHORT_TITLE_CHARS} characters "
            "for the step picker."
        )


@functools.cache
def lesson_text() -> tuple[StepText, ...]:
    """The steps' words in lesson order."""
    return parse_steps(read_toml(ASSET), f"assets/{ASSET}")


@dataclass(frozen=True)
class NextPage:
    """A page to go to after the lesson and what to do there."""

    page: str  # a page file, "pages/x.py"
    why: str


@dataclass(frozen=True)
class LessonEnd:
    """The last slide's words."""

    title: str
    next: tuple[NextPage, ...]
    notes: str  # speaker notes for the lecturer's console
    short: str = ""  # the title in at most SHORT_TITLE_CHARS, when the title is longer

    @property
    def short_title(self) -> str:
        """The title as the step picker shows it: whole, in SHORT_TITLE_CHARS."""
        return self.short or self.title


def parse_end(raw: dict, source: str) -> LessonEnd:
    """Validate the [end] table: a title, speaker notes and at least one [[end.next]] page."""
    end = raw.get("end")
    if not isinstance(end, dict) or not isinstance(end.get("title"), str) or not end["title"]:
        raise AssetError(f"{source}: the [end] table needs a title.")
    if not isinstance(end.get("notes"), str) or not end["notes"].strip():
        raise AssetError(f"{source}: the [end] table needs speaker notes (notes).")
    pages = end.get("next")
    if not isinstance(pages, list) or not pages:
        raise AssetError(f"{source}: [end] needs at least one [[end.next]] page.")
    for index, entry in enumerate(pages, start=1):
        page, why = entry.get("page"), entry.get("why")
        if not (isinstance(page, str) and _PAGE.match(page) and isinstance(why, str) and why):
            raise AssetError(f"{source}, end.next {index}: needs a page 'pages/x.py' and a why.")
    if not isinstance(end.get("short", ""), str):
        raise AssetError(f"{source}: [end]'s short must be a string.")
    _check_short(end, f"{source}, [end]")
    next_pages = tuple(NextPage(e["page"], e["why"]) for e in pages)
    return LessonEnd(end["title"], next_pages, end["notes"], end.get("short", ""))


@functools.cache
def lesson_end() -> LessonEnd:
    """The last slide's words."""
    return parse_end(read_toml(ASSET), f"assets/{ASSET}")


def slide_count() -> int:
    """The steps and the last slide."""
    return len(lesson_text()) + 1


def fill(template: str, facts: dict[str, object], escape: Callable[[str], str]) -> str:
    """The template with its braces filled: strings (tokens, the user's words) pass
    through `escape` for the medium (markdown or HTML), numbers keep their format spec."""
    shown = {k: escape(v) if isinstance(v, str) else v for k, v in facts.items()}
    return template.format(**shown)


def bold_to_html(template: str) -> str:
    """The one piece of markup the lesson's sentences use, **bold**, as HTML."""
    return re.sub(r"\*\*(.+?)\*\*", r"<strong>\1</strong>", template)
