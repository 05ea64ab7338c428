"""The lecturer's speaker notes (assets/lesson.toml, shown on the console): every step and
the last slide has 2–4 sentences that say what to ask and name the common wrong answer,
and a words file missing them fails on load naming the step."""

from __future__ import annotations

import re

import pytest

from attention.assets import AssetError
from attention.teaching.lesson.content import lesson_end, lesson_text, parse_end, parse_steps

GOOD = {"id": "a", "title": "T", "notice": ["n"], "question": "q", "because": "b", "notes": "s"}
END = {"title": "T", "notes": "s", "next": [{"page": "pages/home.py", "why": "w"}]}


def sentences(text: str) -> list[str]:
    """Sentences end with a full stop, ? or ! followed by a space or the end."""
    return [s for s in re.split(r"(?<=[.?!])\s+", text.strip()) if s]


@pytest.mark.parametrize("step", lesson_text(), ids=lambda step: step.id)
def test_every_step_has_two_to_four_sentences_of_notes(step):
    said = sentences(step.notes)
    assert 2 <= len(said) <= 4, said
    assert said[0].startswith("Ask")
    assert "wrong answer" in step.notes
    assert "{" not in step.notes  # notes are not filled: no placeholders, no stale numbers
    assert not re.search(r"\d\.\d|\d ?%", step.notes.replace("100 %", "all"))


def test_the_last_slide_has_notes_too():
    assert 2 <= len(sentences(lesson_end().notes)) <= 4


def test_a_step_or_last_slide_without_notes_fails_with_a_clear_error():
    assert parse_steps({"step": [GOOD]}, "x.toml")[0].notes == "s"
    bare = {k: v for k, v in GOOD.items() if k != "notes"}
    with pytest.raises(AssetError, match=r"x\.toml, step 2: missing notes"):
        parse_steps({"step": [{**GOOD, "id": "b"}, bare]}, "x.toml")
    with pytest.raises(AssetError, match="non-empty"):
        parse_steps({"step": [{**GOOD, "notes": ""}]}, "x.toml")
    assert parse_end({"end": END}, "x.toml").notes == "s"
    with pytest.raises(AssetError, match=r"\[end\] table needs speaker notes"):
        parse_end({"end": {k: v for k, v in END.items() if k != "notes"}}, "x.toml")
