"""The "Do we need all these heads?" page: the switch string of its links, the numbers its
sentences state (checked against hand-made inputs and independent computations), and the
page itself through AppTest (switching heads off, the link round trip, junk links)."""

from __future__ import annotations

import numpy as np
import pytest

from attention.analysis.ablation import CosineScore, head_importance
from attention.analysis.head_masks import format_heads_off, layer_off, only_head, parse_heads_off
from attention.analysis.head_roles import ROLES
from attention.analysis.heads_needed import (
    SCORE_VIEWS,
    embedding_cosine,
    extreme_heads,
    focus_rows,
    masked_accuracy,
    rollout_contrast,
    summarise_pruning,
)
from attention.analysis.paraphrase import ParaphraseTask, Triplet
from attention.analysis.pruning import PruningCurve
from attention.teaching.narration.heads_needed import (
    importance_sentence,
    pruning_sentence,
    rollout_sentence,
)
from tests.pages.test_pages import assert_no_failure
from tests.support import apptest
from view_state.scenario import DEFAULT_TEXT

PAGE = "pages/heads_needed.py"
LAYERS, HEADS = 6, 12


@pytest.fixture(scope="module")
def model():
    from attention.models.pretrained import load_pretrained

    return load_pretrained()


# The switch string ------------------------------------------------------------------


def test_heads_off_string_names_layer_dot_head_one_based():
    mask = np.ones((LAYERS, HEADS))
    mask[0, 2] = mask[1, 6] = mask[5, 11] = 0
    assert format_heads_off(mask) == "1.3,2.7,6.12"
    assert format_heads_off(np.ones((LAYERS, HEADS))) == ""


@pytest.mark.parametrize("seed", range(5))
def test_heads_off_string_round_trips(seed):
    mask = (np.random.default_rng(seed).random((LAYERS, HEADS)) < 0.5).astype(np.float32)
    np.testing.assert_array_equal(parse_heads_off(format_heads_off(mask), LAYERS, HEADS), mask)


def test_parse_ignores_spaces_empty_parts_and_repeats():
    mask = parse_heads_off(" 2.7 ,, 2.7,", LAYERS, HEADS)
    assert mask.sum() == LAYERS * HEADS - 1 and mask[1, 6] == 0
    np.testing.assert_array_equal(parse_heads_off("", LAYERS, HEADS), np.ones((LAYERS, HEADS)))


@pytest.mark.parametrize(
    "junk", ["x", "1", "0.3", "7.1", "1.0", "1.13", "1.3;2.4", "1.3.4", "-1.2", "1.2" * 400]
)
def test_parse_refuses_what_is_not_a_head(junk):
    with pytest.raises(ValueError):
        parse_heads_off(junk, LAYERS, HEADS)


def test_layer_off_and_only_head():
    mask = np.ones((LAYERS, HEADS))
    mask[0, 0] = 0
    off = layer_off(mask, 3)
    assert off[3].sum() == 0 and off.sum() == LAYERS * HEADS - 1 - HEADS
    assert mask[3].sum() == HEADS  # a copy
    kept = only_head(LAYERS, HEADS, 4)
    assert kept.sum() == LAYERS and (kept[:, 4] == 1).all()


# The numbers of the sentences -------------------------------------------------------


def _roles(strongest: dict[tuple[int, int], tuple[str, float]]) -> dict[str, np.ndarray]:
    """Role scores where every head gives 10 % to each role, except the named heads."""
    roles = {role: np.full((LAYERS, HEADS), 0.1) for role in ROLES}
    for (layer, head), (role, share) in strongest.items():
        roles[role][layer, head] = share
    return roles


def test_extreme_heads_names_the_largest_and_smallest_head_that_is_on():
    importance = np.full((LAYERS, HEADS), 0.01)
    importance[2, 4] = 0.3  # the most important
    importance[0, 0] = 0.9  # larger, but switched off
    importance[5, 1] = -0.02  # the least
    on = np.ones((LAYERS, HEADS), bool)
    on[0, 0] = False
    roles = _roles({(2, 4): ("previous token", 0.71), (5, 1): ("[SEP]", 0.5)})
    most, least = extreme_heads(importance, on, roles)
    assert [(h.layer, h.head, h.role, h.share) for h in most] == [(2, 4, "previous token", 0.71)]
    assert [(h.layer, h.head, h.role) for h in least] == [(5, 1, "[SEP]")]
    text = importance_sentence(importance, on, roles, SCORE_VIEWS["cosine"].value)
    assert "**layer 3 head 5** (previous token 71%, importance 0.3000)" in text
    assert "**layer 6 head 2** ([SEP] 50%, importance -0.0200)" in text
    assert "score rises when that head is off" in text


def test_ties_are_counted_and_equal_importance_is_said():
    importance = np.zeros((LAYERS, HEADS))
    importance[1, 1] = 1 / 62
    on = np.ones((LAYERS, HEADS), bool)
    text = importance_sentence(importance, on, _roles({}), SCORE_VIEWS["accuracy"].value)
    assert "importance 1.6 points" in text and f"{LAYERS * HEADS - 1} heads tie" in text
    flat = importance_sentence(np.zeros((LAYERS, HEADS)), on, _roles({}), str)
    assert "Every head that is on has the same importance" in flat
    none_on = importance_sentence(importance, np.zeros((LAYERS, HEADS), bool), _roles({}), str)
    assert "Every head is switched off" in none_on


def _curve(scores: list[float]) -> PruningCurve:
    return PruningCurve("accuracy", np.arange(len(scores)), np.array(scores), ())


def test_pruning_summary_counts_heads_before_a_5_point_drop():
    # falls 5 points or more first after 4 heads (0.90 → 0.85): 3 heads go before
    curve = _curve([0.90, 0.91, 0.88, 0.87, 0.85, 0.80, 0.70])
    randoms = [_curve([0.90, 0.84, 0.8, 0.8, 0.8, 0.8, 0.8]), _curve([0.9] * 6 + [0.5])]
    summary = summarise_pruning(curve, randoms, 72, 0.05)
    assert summary.by_importance == 3 and summary.after == (4, pytest.approx(0.85))
    assert summary.by_random == (0, 5)
    text = pruning_sentence(summary)
    assert "accuracy is 90.0%" in text and "**3 of 72 heads**" in text
    assert "with 4 off it is 85.0%" in text and "2.5 (the median of 2 orders, from 0 to 5)" in text
    assert "measured every" not in text


def test_curves_measured_in_steps_are_said_to_be_lower_bounds():
    curve = PruningCurve("accuracy", np.array([0, 3, 6, 9]), np.array([0.9, 0.9, 0.84, 0.8]), ())
    stepped = PruningCurve("accuracy", np.array([0, 3, 6]), np.array([0.9, 0.88, 0.7]), ())
    summary = summarise_pruning(curve, [stepped], 72, 0.05)
    assert summary.by_importance == 3 and summary.after == (6, pytest.approx(0.84))
    assert summary.by_random == (3,) and summary.measure_every == 3
    text = pruning_sentence(summary)
    assert "with 6 off it is 84.0%" in text
    assert "measured every 3 heads, so each count may be up to 2 higher" in text


def test_pruning_summary_when_the_score_never_drops():
    summary = summarise_pruning(_curve([0.9, 0.9, 0.89]), [], 72, 0.05)
    assert summary.after is None and summary.by_importance == 2
    assert "all 2 heads the curve removes" in pruning_sentence(summary)


def test_rollout_contrast_on_constructed_maps():
    tokens = ["[CLS]", "a", "b", "[SEP]"]
    rng = np.random.default_rng(0)
    attentions = rng.random((2, 3, 4, 4))
    attentions /= attentions.sum(-1, keepdims=True)
    rollout = rng.random((2, 4, 4))
    rows = focus_rows(attentions, rollout, 1)
    raw_last = sum(attentions[1, h, 1] for h in range(3)) / 3  # by hand: mean over heads
    np.testing.assert_allclose(rows[0, 1], raw_last)
    np.testing.assert_allclose(rows[1], rollout[:, 1])
    contrast = rollout_contrast(rows, tokens, 1)
    assert contrast.layer == 1
    assert contrast.self_raw == pytest.approx(raw_last[1])
    assert contrast.cls_raw == pytest.approx(raw_last[0])
    assert contrast.self_rollout == pytest.approx(rollout[1, 1, 1])
    assert contrast.cls_rollout == pytest.approx(rollout[1, 1, 0])
    assert contrast.top_raw == int(np.argmax(raw_last))
    assert contrast.top_rollout == int(np.argmax(rollout[1, 1]))


def test_rollout_sentence_escapes_tokens_and_says_whether_the_tops_agree():
    rows = np.zeros((2, 1, 3))
    rows[0, 0] = [0.7, 0.2, 0.1]  # raw: mostly [CLS]
    rows[1, 0] = [0.2, 0.1, 0.7]  # rollout: mostly the last token
    tokens = ["[CLS]", "<b>", "x"]
    text = rollout_sentence(rollout_contrast(rows, tokens, 1), tokens, 1, lambda t: t.upper())
    assert "“<B>” puts 20.0% of its raw attention" in text and "70.0% on [CLS]" in text
    assert "traces 10.0% of its vector back to itself and 20.0% to [CLS]" in text
    assert "largest weight is on “[CLS]”, rollout's on “X”" in text


# Against the model: other code paths give the same numbers ----------------------------


def test_cosine_is_one_with_every_head_and_matches_the_ablation_importance(model):
    ones = np.ones((LAYERS, HEADS), np.float32)
    assert embedding_cosine(model, DEFAULT_TEXT, ones) == pytest.approx(1.0, abs=1e-5)
    importance = head_importance(model, CosineScore((DEFAULT_TEXT,)))
    layer, head = np.unravel_index(importance.argmax(), importance.shape)
    one_off = ones.copy()
    one_off[layer, head] = 0
    cosine = embedding_cosine(model, DEFAULT_TEXT, one_off)
    assert cosine < 1
    assert 1 - cosine == pytest.approx(importance[layer, head], abs=1e-4)


def test_masked_accuracy_equals_running_each_sentence_alone(model):
    task = ParaphraseTask(
        (
            Triplet("She turned down the job offer.", "She declined the job.", "She took the job."),
            Triplet("The car would not start.", "The car failed to start.", "The car started."),
        )
    )
    mask = only_head(LAYERS, HEADS, 0)

    def alone(head_mask):
        rows = [model.run(text, head_mask=head_mask).sentence_embedding for text in task.texts]
        return float(task.accuracy(np.stack(rows)))

    assert masked_accuracy(model, task, mask) == pytest.approx(alone(mask))
    ones = np.ones((LAYERS, HEADS))
    assert masked_accuracy(model, task, ones) == pytest.approx(alone(ones))


# The page ---------------------------------------------------------------------------


def _metric(at, start: str) -> str:
    return next(m.value for m in at.metric if m.label.startswith(start))


def _pills_off(at) -> set[tuple[int, int]]:
    """(layer, head), 1-based, of every head whose pill is not selected."""
    return {
        (layer, head)
        for layer in range(1, LAYERS + 1)
        for head in range(1, HEADS + 1)
        if head not in at.pills(key=f"heads_layer_{layer}").value
    }


@pytest.mark.slow  # ablation: the page scores the task with every head on
def test_page_opens_with_every_head_on():
    at = apptest.open_page(PAGE)
    assert_no_failure(at)
    assert _pills_off(at) == set()
    assert float(_metric(at, "Cosine")) == pytest.approx(1.0, abs=1e-4)
    assert "heads_off" not in at.query_params
    importance = apptest.chart(at, "heads_importance")["data"][0]
    assert apptest.array(importance["z"]).size == LAYERS * HEADS


@pytest.mark.slow  # ablation on the task
def test_switching_a_head_off_changes_the_cosine_and_the_link():
    at = apptest.open_page(PAGE)
    at.pills(key="heads_layer_6").unselect(12).run()
    assert_no_failure(at)
    assert _pills_off(at) == {(6, 12)}
    assert float(_metric(at, "Cosine")) < 0.9999
    assert at.query_params["heads_off"] in ("6.12", ["6.12"])
    switches = apptest.chart(at, "heads_switches")["data"][0]
    assert list(switches["customdata"]).count("off") == 1
    importance = apptest.array(apptest.chart(at, "heads_importance")["data"][0]["z"])
    assert np.isnan(importance.reshape(LAYERS, HEADS)[5, 11])  # an off head is blank


@pytest.mark.slow  # ablation: a run of the task per button
def test_buttons_switch_a_layer_off_keep_one_head_and_reset():
    at = apptest.open_page(PAGE)
    at.selectbox(key="heads_pick_layer").select(2).run()
    at.button(key="heads_layer_off").click().run()
    assert_no_failure(at)
    assert _pills_off(at) == {(2, h) for h in range(1, HEADS + 1)}
    at.selectbox(key="heads_pick_head").select(3).run()
    at.button(key="heads_only").click().run()
    assert _pills_off(at) == {
        (layer, h) for layer in range(1, LAYERS + 1) for h in range(1, HEADS + 1) if h != 3
    }
    assert _metric(at, "Heads on") == f"{LAYERS} of {LAYERS * HEADS}"
    at.button(key="heads_reset").click().run()
    assert _pills_off(at) == set() and "heads_off" not in at.query_params


@pytest.mark.slow  # ablation on the task
def test_a_link_reopens_its_switches():
    at = apptest.open_page(PAGE, heads_off="1.3,2.7")
    assert_no_failure(at)
    assert _pills_off(at) == {(1, 3), (2, 7)}
    assert not at.warning
    assert float(_metric(at, "Cosine")) < 1


@pytest.mark.parametrize("junk", ["1.99", "banana", "<b>1.3</b>"])
def test_a_junk_link_turns_every_head_on_with_a_warning(junk):
    at = apptest.open_page(PAGE, heads_off=junk)
    assert_no_failure(at)
    assert _pills_off(at) == set()
    assert any("heads_off" in w.value and "every head is on" in w.value for w in at.warning)
    assert "heads_off" not in at.query_params


def test_markup_in_the_sentence_stays_text():
    at = apptest.open_page(PAGE, text="<b>bold</b> <script>alert(1)</script> $x^2$ **strong**")
    assert_no_failure(at)
    for block in at.markdown:
        assert "<script>" not in block.value and "<b>" not in block.value
    rollout = apptest.chart(at, "heads_rollout")
    assert all("<b>" not in label for label in rollout["data"][0]["x"])
