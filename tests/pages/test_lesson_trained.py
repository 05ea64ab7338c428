"""Step 8 of the Lesson answers Q1 and Q2 from the trained run of "Why several heads?"
§4: while the run trains the step shows its progress and its quiz works; once revealed,
the step states each layout's accuracy, whether the full-size heads divide the two
lookups and what the split costs, numbers checked against a recomputation."""

from __future__ import annotations

import pytest

from attention.experiments.training.summary import LayoutFacts
from attention.experiments.training.train import TrainingConfig, evaluation_batch
from attention.teaching.lesson.content import lesson_text
from attention.teaching.markdown import literal
from attention.teaching.narration.lesson import trained_answer
from tests.support.apptest import check_answer, open_page

PAGE = "pages/lesson.py"
COST_STEP = [step.id for step in lesson_text()].index("cost") + 1
MARKS = ("A", "B")


def facts(one_on=(0, 1), split_on=(2, 2), full_on=(2, 2), split_params=4096) -> dict:
    return {
        "one": LayoutFacts("(a) one", 0.2, one_on, None, 4096),
        "split": LayoutFacts("(b) split", 1.0, split_on, 0.7, split_params),
        "full": LayoutFacts("(c) full", 0.9, full_on, 0.6, 16384),
    }


@pytest.mark.parametrize(
    ("split_on", "full_on", "claim"),
    [
        ((2, 2), (1, 3), "specialising does not need the smaller space"),
        ((4, 0), (1, 3), "in this run the split heads do not"),
        ((2, 2), (0, 4), "only the split heads divide"),
        ((0, 4), (4, 0), "neither layout's heads divide"),
    ],
)
def test_the_verdict_follows_which_layouts_divide_the_lookups(split_on, full_on, claim):
    sentence = trained_answer(facts(split_on=split_on, full_on=full_on), MARKS, 3)
    assert claim in sentence
    claims = [
        "specialising does not need",
        "split heads do not",
        "only the split heads",
        "neither layout",
    ]
    assert sum(c in sentence for c in claims) == 1
    assert "seed 3" in sentence
    assert f"{literal('(a) one')} 20%" in sentence and f"{literal('(c) full')} 90%" in sentence


def test_the_cost_clause_says_equal_parameters_only_when_they_are_equal():
    assert "the split costs one head's 4,096 parameters" in trained_answer(facts(), MARKS, 0)
    other = trained_answer(facts(split_params=5000), MARKS, 0)
    assert "the split costs 5,000 parameters, one head 4,096" in other
    assert "one head's" not in other


def test_the_step_trains_with_progress_then_answers_from_the_run():
    seed = 0
    at = open_page(PAGE, step=str(COST_STEP), seed=str(seed))
    assert not at.exception, at.exception
    assert any(str(r.key).startswith("quiz_") for r in at.radio)
    progress = at.get("progress")
    if progress:  # not trained yet in this process: the bar, and the quiz still works
        assert "seed 0" in progress[0].proto.text
        check_answer(at)
        assert at.success or at.warning  # the answer was marked
        assert not at.exception, at.exception
    from ui.why_heads import experiments as why_heads

    comparison = why_heads.train(TrainingConfig(), seed)
    at = open_page(PAGE, step=str(COST_STEP), seed=str(seed), present="1")
    at.button(key="lesson_reveal").click().run()
    assert not at.exception, at.exception
    text = next(m.value for m in at.markdown if "Trained on two lookups" in m.value)

    config, batch = comparison.config, evaluation_batch(comparison.config, seed)
    for key, result in comparison.results.items():
        if key == "sliced":
            continue
        logits = result.model.forward(batch.x).logits
        accuracy = (logits.argmax(axis=-1) == batch.answers).all(axis=1).mean()
        assert f"{literal(result.variant.label)} {accuracy:.0%}" in text
    d, h = config.d_model, config.n_heads
    assert f"the split costs one head's {4 * d * d:,} parameters" in text  # W_Q,K,V,O: d × d
    assert f"full-size heads {4 * h * d * d:,}." in text
    labels_on = {k: r.focus[:, :2] for k, r in comparison.results.items()}
    full_divides = min((labels_on["full"] > 0.5).sum(axis=0)) > 0
    assert ("specialising does not need" in text or "split heads do not" in text) == full_divides
