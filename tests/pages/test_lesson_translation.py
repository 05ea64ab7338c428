"""Step 13 shows self, causal and cross attention each doing its part: the encoder head
where "you" finds its word of address, the decoder's causal mask, and the cross map
whose start token reads "you"; it asks only about examples with a "you", and no share
it states is above 100 %."""

from __future__ import annotations

import re

import numpy as np

from attention.models.translation import EXAMPLES
from attention.teaching.lesson.content import lesson_text
from tests.support.apptest import chart, open_page

NUMBER = [step.id for step in lesson_text()].index("translation") + 1
KEY = "lesson_view_translation"


def revealed(example: int | None = None):
    at = open_page("pages/lesson.py", step=str(NUMBER), present="1")
    if example is not None:
        at.select_slider(key="lesson_example").set_value(example).run()
    at.button(key="lesson_reveal").click().run()
    assert not at.exception, at.exception
    text = "\n".join(m.value for m in at.markdown).replace("\\", "")
    return at, text


def maps(at) -> list[np.ndarray]:
    figure = chart(at, KEY)
    return [
        np.array([[np.nan if v is None else v for v in row] for row in t["z"]], dtype=float)
        for t in figure["data"]
        if t.get("type") == "heatmap"
    ]


def test_the_question_is_asked_only_about_examples_with_you():
    at = open_page("pages/lesson.py", step=str(NUMBER))
    offered = at.select_slider(key="lesson_example").options
    with_you = [e.english for e in EXAMPLES if "you" in re.findall(r"\w+", e.english.lower())]
    assert sorted(offered) == sorted(with_you)
    assert len(with_you) < len(EXAMPLES)  # the assets hold examples without "you"


def test_each_attention_is_seen_doing_its_part():
    at, text = revealed()  # "you are tired, my friend"
    encoder, decoder, cross = maps(at)
    source = ["you", "are", "tired", "my", "friend"]
    assert encoder.shape == (5, 5) and cross.shape == (decoder.shape[0], 5)
    you = source.index("you")
    top = source[int(np.argmax(encoder[you]))]
    assert top == "friend"  # the word of address
    assert f"puts {encoder[you].max():.0%} of its weight on “{top}”" in text
    blocked = np.isnan(decoder)
    n = decoder.shape[0]
    assert np.array_equal(blocked, np.triu(np.ones((n, n), dtype=bool), k=1))
    assert f"the {n * (n - 1) // 2} grey cells" in text
    assert np.allclose(np.nansum(decoder, axis=1), 1.0)
    assert f"puts {cross[0, you]:.0%} of its weight on “you”" in text


def test_no_share_above_one_and_no_empty_reading_is_stated():
    for example in range(len(EXAMPLES)):
        at = open_page("pages/lesson.py", step=str(NUMBER), present="1")
        if EXAMPLES[example].english not in at.select_slider(key="lesson_example").options:
            continue
        at.select_slider(key="lesson_example").set_value(example).run()
        at.button(key="lesson_reveal").click().run()
        text = "\n".join(m.value for m in at.markdown).replace("\\", "")
        shares = [int(s) for s in re.findall(r"(\d+)%", text)]
        assert shares and max(shares) <= 100, text
        assert not re.search(r"\b0% of its weight", text), text
