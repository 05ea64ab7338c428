"""The block page through AppTest: the numbers in the figure JSON against the engine and
against independent computations, the knobs, and bad translation input."""

from __future__ import annotations

import re

import numpy as np
import pytest

from attention import MultiHeadAttention
from attention.models.toy import toy_inputs
from attention.models.translation import (
    ENGLISH,
    EXAMPLES,
    GERMAN,
    HEADS,
    build_translation_model,
    choose_pronoun,
    look_up,
)
from attention.teaching.markdown import literal
from tests.support.apptest import (
    array,
    chart,
    grid_labels,
    grid_maps,
    open_page,
    toy_points,
    traces,
)

PAGE = "pages/block.py"
MODEL = build_translation_model()
SENTENCE = "The cat sat on the mat because it was tired."
CHARTS = [
    "block_concat",
    "block_norms",
    "block_hidden",
    "block_collapse",
    "block_collapse_pca",
    "block_encoder",
    "block_decoder",
    "block_cross",
    "block_joint",
]


@pytest.fixture(scope="module")
def default_page():
    at = open_page(PAGE, seed="3", d_model="16", heads="2")
    assert not at.exception, at.exception
    return at


def _engine(d_model=16, heads=2, seed=3):
    x = toy_points(SENTENCE, d_model, seed=seed).x
    return x, MultiHeadAttention(d_model, heads, seed=seed, dtype=np.float64)(x)


def test_every_chart_is_drawn(default_page):
    for key in CHARTS:
        assert chart(default_page, key)["data"], key
    assert not default_page.error


def test_concatenated_heads_and_update_are_the_engines(default_page):
    _, expected = _engine()
    concat, update = (array(t["z"]) for t in traces(chart(default_page, "block_concat"), "heatmap"))
    np.testing.assert_allclose(concat, expected.concat, atol=1e-4)
    np.testing.assert_allclose(update, expected.output, atol=1e-4)
    shapes = chart(default_page, "block_concat")["layout"]["shapes"]
    bands = [s for s in shapes if s["yref"] == "paper"]
    assert [b["x0"] for b in bands] == [-0.5, 7.5]  # one band per head of 8 columns


def test_stream_and_update_norms(default_page):
    x, expected = _engine()
    bars = traces(chart(default_page, "block_norms"), "bar")
    assert len(bars) == 4  # (stream, update) × (attention, feed-forward)
    np.testing.assert_allclose(array(bars[0]["y"]), np.linalg.norm(x, axis=1), atol=1e-4)
    np.testing.assert_allclose(
        array(bars[1]["y"]), np.linalg.norm(expected.output, axis=1), atol=1e-4
    )
    # post-LN (the default): the feed-forward reads a LayerNorm output, of length √d
    np.testing.assert_allclose(array(bars[2]["y"]), np.sqrt(16), atol=1e-3)


def test_relu_hidden_units_are_never_negative():
    at = open_page(PAGE, d_model="16", heads="2")
    at.radio(key="block_act").set_value("ReLU").run()
    assert not at.exception
    fig = chart(at, "block_hidden")
    hidden = array(traces(fig, "heatmap")[0]["z"])
    assert hidden.shape == (len(toy_inputs(SENTENCE, 16).tokens), 64)  # d_ff = 4 · d_model
    assert (hidden >= 0).all() and (hidden == 0).any()
    share = round(100 * float((hidden > 0).mean()))
    assert f"{share} % of them > 0" in fig["layout"]["title"]["text"]


def read_aloud(text: str) -> float:
    """A number written without e-notation ("1.5 × 10⁻¹⁶", "0.231") as a float."""
    assert "e" not in text.lower(), text
    digits = str.maketrans("⁻⁰¹²³⁴⁵⁶⁷⁸⁹−", "-0123456789-")
    mantissa, _, power = text.translate(digits).partition(" × 10")
    return float(mantissa.replace(",", "")) * 10.0 ** int(power or 0)


def test_rank_collapse_curves_and_metrics(default_page):
    curves = traces(chart(default_page, "block_collapse"), "scatter")
    assert len(curves) == 4
    by_name = {c["name"]: array(c["customdata"]) for c in curves}
    for name, y in by_name.items():
        assert y.shape == (25,) and y[0] > 0.5
        if "no residual" in name:
            assert y[8] < 1e-12, name
        else:
            assert y[24] > 0.05, name  # pre-LN, the default stack
    metrics = {m.label: m.value for m in default_page.metric}
    for name, y in by_name.items():
        assert read_aloud(metrics[name]) == pytest.approx(y[6], rel=0.05)  # default depth


def test_depth_slider_moves_the_pca_and_the_metrics():
    at = open_page(PAGE, d_model="16", heads="2")
    at.slider(key="block_depth").set_value(12).run()
    assert not at.exception
    fig = chart(at, "block_collapse_pca")
    assert "12 layers" in fig["layout"]["title"]["text"]
    panels = traces(fig, "scatter")
    for panel in panels:
        xy = np.abs(np.stack([array(panel["x"]), array(panel["y"])]))
        if "no residual" in panel["name"]:
            assert xy.max() < 1e-6, panel["name"]  # collapsed onto one point
        else:
            assert xy.max() > 0.05, panel["name"]
    curves = {
        c["name"]: array(c["customdata"]) for c in traces(chart(at, "block_collapse"), "scatter")
    }
    metrics = {m.label: m.value for m in at.metric}
    assert set(metrics) == set(curves)
    for name, y in curves.items():
        assert read_aloud(metrics[name]) == pytest.approx(y[12], rel=0.05), name


def test_stack_without_layer_norm_changes_the_curves(default_page):
    at = open_page(PAGE, seed="3", d_model="16", heads="2")
    before = {c["name"]: array(c["y"]) for c in traces(chart(at, "block_collapse"), "scatter")}
    at.radio(key="block_stack_norm").set_value("no LN").run()
    after = {c["name"]: array(c["y"]) for c in traces(chart(at, "block_collapse"), "scatter")}
    name = "attention, residual"
    assert not np.allclose(before[name], after[name])
    assert after[name][24] < before[name][24]  # no LayerNorm: the stream's mean grows


def assert_states_share(text: str, after: str, drawn: float) -> None:
    """The page says "puts **N%** <after>" with the share its chart draws (the chart's
    numbers are rounded to 4 decimals, so a share just under 1 may be drawn as 1)."""
    (stated,) = re.findall(rf"puts \*\*([<>]?\d+)%\*\* {re.escape(after)}", text)
    if stated == ">99":
        assert 0.99 < drawn <= 1
    else:
        assert int(stated) == round(100 * drawn) and (drawn < 0.99 or drawn == 1)


def _maps(at, key: str) -> list[np.ndarray]:
    return list(grid_maps(chart(at, key)))


def test_translation_maps_at_the_default_example(default_page):
    encoder, decoder, cross = (
        _maps(default_page, k) for k in ("block_encoder", "block_decoder", "block_cross")
    )
    assert [m.shape for m in encoder] == [(3, 3)] * 4
    assert [m.shape for m in decoder] == [(4, 4)] * 4
    assert [m.shape for m in cross] == [(4, 3)] * 4  # <s> du bist müde × you are tired
    for m in decoder:
        assert np.isnan(m[np.triu_indices(4, k=1)]).all()  # the future is blocked
    formality = decoder[1]
    assert (formality[1:, 1] > 0.99).all()  # du, bist, müde all look at du
    assert (cross[3][:, 0] > 0.99).all()  # every German word reads "you"
    y_labels, _ = grid_labels(chart(default_page, "block_cross"))
    assert y_labels == ["&lt;s&gt;", "du", "bist", "müde"]
    titles = [
        a["text"].replace("<br>", " ")
        for a in chart(default_page, "block_cross")["layout"]["annotations"]
    ]
    assert titles == [f"{h + 1}. {head.name}" for h, head in enumerate(HEADS["cross"])]


def _page_text(at) -> str:
    return " ".join(m.value for m in at.markdown)


def test_every_head_is_described_beside_its_maps(default_page):
    text = _page_text(default_page)
    for heads in HEADS.values():
        for head in heads:
            for part in (head.name, head.does, head.built, head.carried):
                assert literal(part) in text, part


def _choose(label: str):
    at = open_page(PAGE, d_model="16", heads="2")
    at.selectbox(key="block_example").select(label).run()
    assert not at.exception and not at.error
    return at


@pytest.mark.parametrize("example", EXAMPLES, ids=lambda e: e.english)
def test_each_example_states_the_choice_its_maps_make(example):
    """The page's sentence about du / ihr / Sie: the share of weight on "you" read from
    the drawn cross map, the pronoun a translator wrote when the source settles it."""
    at = _choose(example.label)
    assert at.text_input(key="block_target").value == example.german
    cross = _maps(at, "block_cross")[3]  # the "you" head
    english = look_up(example.english, ENGLISH)
    yous = [j for j, w in enumerate(english) if "2nd person" in w.grammar]
    on_you = cross[0, yous].sum() if yous else 0.0
    text = _page_text(at)
    written = {w.text for w in look_up(example.german, GERMAN) if "you" in w.concepts}
    if not yous:
        assert "finds no English 2nd-person word" in text
        return
    assert_states_share(text, "of its weight on the English 2nd-person words", on_you)
    cue = any("address" in w.grammar for w in english)
    if cue and len(choose_pronoun(MODEL.run(example.english, example.german)).candidates) == 1:
        (pronoun,) = written
        assert f"asks for **{pronoun}**" in text
        assert f"Your German uses **{pronoun}**, as the English sentence asks" in text
    else:
        assert "does not settle it" in text


def test_no_cue_is_ambiguous_and_a_ruled_out_pronoun_is_named():
    at = open_page(PAGE, d_model="16", heads="2")
    text = _page_text(at)  # the default: "you are tired" → "du bist müde"
    assert "it allows **du**, **ihr** and **Sie**" in text
    assert "number: not settled; formality: not settled" in text
    assert "that choice came from outside the English sentence" in text
    at.text_input(key="block_source").input("you guys are tired").run()
    text = _page_text(at)
    assert "number: **plural**; formality: **informal**" in text
    assert "asks for **ihr**" in text
    assert "Your German uses **du**, which the English sentence rules out" in text
    encoder = _maps(at, "block_encoder")[3]  # who is "you"?
    assert_states_share(text, "of its weight on **guys**", encoder[0, 1])
    at.text_input(key="block_source").input("the dog is tired").run()
    assert "finds no English 2nd-person word" in _page_text(at)


def test_choosing_an_example_fills_both_sentences():
    sir = next(e for e in EXAMPLES if "sir" in e.english)
    at = _choose(sir.label)
    assert at.text_input(key="block_target").value == sir.german
    decoder = _maps(at, "block_decoder")
    assert grid_labels(chart(at, "block_decoder"))[0][1] == "Sie"
    assert (decoder[1][1:, 1] > 0.99).all()


def test_joint_layout_follows_the_chosen_cross_head():
    at = open_page(PAGE, d_model="16", heads="2")
    at.selectbox(key="block_cross_head").select(2).run()
    fig = chart(at, "block_joint")
    assert fig["layout"]["title"]["text"].startswith("3. position")
    points = [t for t in fig["data"] if t.get("mode") == "markers+text"]
    assert [p["name"] for p in points] == ["query (decoder)", "key (encoder)"]
    assert len(array(points[0]["x"])) == 4 and len(array(points[1]["x"])) == 3


@pytest.mark.parametrize(
    ("field", "text", "pieces"),
    [
        ("block_source", "you are sleepy", ["“sleepy”", "English vocabulary"]),
        ("block_source", "du bist müde", ["German, the other side"]),
        ("block_target", "   ", ["German sentence is empty"]),
        ("block_target", "<b>du</b> bist [müde](http://x.y)", ["b&gt;du&lt;/b"]),
    ],
)
def test_bad_sentences_get_a_message_and_no_maps(field, text, pieces):
    at = open_page(PAGE, d_model="16", heads="2")
    at.text_input(key=field).input(text).run()
    assert not at.exception
    assert len(at.error) == 1
    message = at.error[0].value
    for piece in pieces:
        assert piece in message
    assert "<b>" not in message and "](" not in message
    keys = [e.proto.id.rsplit("-", 1)[-1] for e in at.get("plotly_chart")]
    assert "block_cross" not in keys and "block_collapse" in keys


def test_large_scenario_runs():
    words = " ".join(f"w{i}" for i in range(64))
    at = open_page(PAGE, d_model="384", heads="16", causal="1", text=words)
    assert not at.exception
    concat = array(traces(chart(at, "block_concat"), "heatmap")[0]["z"])
    assert concat.shape == (64, 384)


def test_a_link_reopens_the_same_view():
    at = open_page(
        PAGE,
        d_model="16",
        heads="2",
        block_depth="9",
        block_stack_norm="no LN",
        block_act="ReLU",
        block_target="ihr seid müde",
    )
    assert not at.exception
    assert at.slider(key="block_depth").value == 9
    assert at.radio(key="block_stack_norm").value == "no LN"
    assert "9 layers" in chart(at, "block_collapse_pca")["layout"]["title"]["text"]
    assert chart(at, "block_hidden")["layout"]["title"]["text"].startswith("RELU")
    assert grid_labels(chart(at, "block_decoder"))[0][1] == "ihr"


def test_text_quotes_the_residual_runs_value_at_depth_24(default_page):
    curves = {
        c["name"]: array(c["customdata"])
        for c in traces(chart(default_page, "block_collapse"), "scatter")
    }
    text = " ".join(m.value for m in default_page.markdown)
    kept, lone = curves["attention, residual"], curves["attention, no residual"]
    (quoted,) = re.findall(r"the distance is (.+?) at depth 24", text)
    assert read_aloud(quoted) == pytest.approx(kept[24], rel=0.05)
    assert f"from {kept[0]:.2f} at depth 0" in text
    floor = next(d for d, value in enumerate(lone) if value <= 1e-15)
    assert f"at depth {floor}" in text


def test_the_trained_model_section_shows_minilm_layer_by_layer():
    at = open_page(PAGE)
    fig = chart(at, "block_real_ratios")
    medians = [t for t in fig["data"] if t.get("mode") == "lines+markers"]
    assert [t["name"] for t in medians] == [
        "self-attention: median token",
        "feed-forward: median token",
    ]
    assert all(len(array(t["y"])) == 6 for t in medians)
    assert all((array(t["y"]) > 0).all() for t in medians)
    assert chart(at, "block_real_paths")["data"]


def _sentence_with(at, words: str) -> str:
    return next(m.value for m in at.markdown if words in m.value)


@pytest.mark.parametrize("text", [None, "Stop.", "The committee approved the new budget today."])
def test_update_sizes_are_described_by_the_numbers_beside_them(text):
    import re

    at = open_page("pages/block.py", **({"text": text} if text else {}))
    assert not at.exception
    for words in ("Median ‖update‖ / ‖stream‖", "MiniLM on your sentence"):
        sentence = _sentence_with(at, words)
        numbers = [float(v) for v in re.findall(r"\b\d\.\d\d\b", sentence)]
        if max(numbers) >= 1:
            assert "at least as long as the stream" in sentence, sentence
        elif max(numbers) >= 0.3:
            assert "shorter than the stream" in sentence and "sizeable" in sentence, sentence
        else:
            assert "nudges the tokens" in sentence, sentence
        assert "fraction of what is already there" not in sentence


@pytest.mark.parametrize("norm", ["pre-LN", "post-LN", "no LN"])
def test_the_residual_sentences_follow_the_chosen_stack(norm):
    at = open_page("pages/block.py", block_stack_norm=norm)
    sentence = _sentence_with(at, "Without the residual (")
    assert f"Without the residual ({norm})" in sentence and "Without pre-LN" not in sentence
    start, end = (
        read_aloud(v)
        for v in re.findall(r"from (\S+) at depth 0 the distance is (.+?) at depth", sentence)[0]
    )
    assert ("drifts down" in sentence) == (end < start / 10)


def test_the_feed_forward_reads_of_each_head_block_are_measured():
    import re

    from attention.models.pretrained import load_pretrained

    at = open_page("pages/block.py", block_reads_layer="3")
    fig = chart(at, "block_reads")
    maps = traces(fig, "heatmap")
    assert [array(m["z"]).shape for m in maps] == [(4, 256), (12, 1536)]
    for z in maps:  # every unit's shares over the heads sum to 1
        np.testing.assert_allclose(array(z["z"]).sum(axis=0), 1.0, atol=1e-3)
    # independently: MiniLM layer 3's unit 0 through W_O, the LayerNorm's gain and W_1
    block = load_pretrained().block(2)
    w_o = block.self_attention.w_o.astype(float).reshape(12, 32, 384)
    path = (w_o * block.norms[0].gain) @ block.feed_forward.w_1[:, 0].astype(float)
    strength = np.linalg.norm(path, axis=1)
    top = (strength / strength.sum()).max()
    drawn = array(maps[1]["z"])
    assert np.isclose(drawn.max(axis=0), top, atol=1e-4).any()
    sentence = next(m.value for m in at.markdown if "feed-forward network is the same" in m.value)
    medians = [int(v) / 100 for v in re.findall(r"\*\*(\d+)%\*\*", sentence)]
    shares = [array(m["z"]).max(axis=0) for m in maps]
    assert medians[:2] == [round(float(np.median(s)), 2) for s in shares]


def test_the_long_page_links_to_each_of_its_sections(default_page):
    """Each link of "On this page" leads to a section header's own anchor."""
    links = next(m.value for m in default_page.markdown if m.value.startswith("On this page:"))
    targets = re.findall(r"\]\(#([\w-]+)\)", links)
    anchors = [h.proto.anchor for h in default_page.header]
    assert targets == [a for a in anchors if a] and len(targets) == 3
