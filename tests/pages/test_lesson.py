"""The Lesson through AppTest: every step renders with no exception and no error, its
sentences change with the input, each quiz's right answer agrees with the data drawn in
the step's figure (recomputed here independently), the step and presenter mode live in
the URL, the score counts first answers, and the exported file escapes the sentence."""

from __future__ import annotations

import json

import numpy as np
import plotly.graph_objects as go
import pytest
import streamlit as st

from attention.core.cost import attention_cost
from attention.figures.base.palette import HEAD_COLORS
from attention.models.translation import EXAMPLES
from attention.teaching.lesson.content import lesson_text, parse_end, parse_steps
from attention.teaching.lesson.quiz import choice_quiz
from attention.teaching.markdown import literal
from attention.teaching.playground import head_trace
from tests.support.apptest import (
    array,
    chart,
    check_answer,
    grid_maps,
    open_page,
    quiz_of,
    tile_maps,
    toy_points,
    traces,
)

PAGE = "pages/lesson.py"
STEPS = [step.id for step in lesson_text()]
SENTENCE = "The cat sat on the mat because it was tired."


def at_id(step_id: str, **query: str):
    """The lesson opened at the step called `step_id`."""
    return at_step(STEPS.index(step_id) + 1, **query)


def at_step(number: int, **query: str):
    at = open_page(PAGE, step=str(number), **query)
    assert not at.exception, at.exception
    return at


def view(at) -> dict:
    return chart(at, f"lesson_view_{STEPS[current(at) - 1]}")


def current(at) -> int:
    return at.selectbox(key="lesson_step").value


def answer(at, option: str):
    """Pick `option` in the step's quiz and return the feedback texts."""
    quiz = quiz_of(at)
    assert literal(option) in quiz.options, (option, quiz.options)  # shown escaped
    check_answer(at, option)
    assert not at.exception
    return [s.value for s in at.success], [w.value for w in at.warning]


def revealed(at):
    """The step after its quiz is answered (with its first option): the sentences that
    state the answer are shown only then."""
    check_answer(at)
    assert not at.exception
    return at


def assert_right(at, option: str) -> None:
    right, wrong = answer(at, option)
    assert right and not wrong, (option, wrong)


@pytest.mark.parametrize("number", range(1, len(STEPS) + 1))
def test_every_step_renders_its_words_view_and_question(number):
    at = at_step(number)
    assert not at.error, [e.value for e in at.error]
    assert at.markdown[0].value == f"**Step {number} of {len(STEPS)}**"
    assert at.header[0].value == lesson_text()[number - 1].title
    assert view(at)["data"], "the step draws its view"
    text = " ".join(m.value for m in revealed(at).markdown)
    assert "{" not in text and "nan" not in text.lower()
    assert any(str(r.key).startswith("quiz_") for r in at.radio)


OTHER_INPUT = {  # what a step's numbers depend on, when not the sentence
    "cost": {"d_model": "32"},
    "slicing": {"seed": "3"},
    "lecture": {"lesson_fit_seed": "3"},  # the step's own control, through the URL
    "after_heads": {"lesson_ffn_layer": "2"},
    "translation": {"lesson_example": EXAMPLES[2].english},
}


@pytest.mark.parametrize("number", range(1, len(STEPS) + 1))
def test_the_numbers_follow_the_input(number):
    def words(**query: str) -> str:
        at = revealed(at_step(number, **query))
        return " ".join(m.value for m in at.markdown[1:])

    other = "A dog chased the small red ball across the long green garden today."
    assert words() != words(**OTHER_INPUT.get(STEPS[number - 1], {"text": other}))


def test_points_answer_is_the_nearest_token_by_cosine():
    at = at_id("points")
    x = toy_points(SENTENCE, 64).x
    cosine = x @ x[1] / np.linalg.norm(x, axis=1) / np.linalg.norm(x[1])
    cosine[1] = -np.inf
    tokens = toy_points(SENTENCE, 64).tokens
    assert_right(at, tokens[int(np.argmax(cosine))])


def test_qkv_answer_is_the_key_the_figure_weights_most():
    at = at_id("qkv")
    keys = next(t for t in view(at)["data"] if t.get("name") == "keys")
    weights = array(keys["customdata"])[:, 0]  # [weight, head number] per key
    np.testing.assert_allclose(weights.sum(), 1.0, atol=1e-3)
    assert_right(at, keys["hovertext"][int(np.argmax(weights))])


def test_qkv_step_names_and_colours_the_head_it_shows():
    figure = view(at_id("qkv", lesson_head="2"))
    titles = [a for a in figure["layout"]["annotations"] if a["text"].startswith("head")]
    assert [t["text"].split("<br>")[0][:8] for t in titles] == ["head 2: "] * 2
    assert {t["font"]["color"] for t in titles} == {HEAD_COLORS[1]}
    keys = next(t for t in figure["data"] if t.get("name") == "keys")
    assert set(array(keys["customdata"])[:, 1]) == {2}  # every key's hover says head 2


def test_qkv_steps_output_star_is_the_weighted_sum_of_the_drawn_values():
    """Step 2 draws the head's values and the focus token's output ★: the ★ sits at the
    values' average weighted by the attention weights their hover gives."""
    figure = view(at_id("qkv", lesson_head="2"))
    values = next(t for t in figure["data"] if t.get("name") == "values")
    (star,) = [t for t in figure["data"] if str(t.get("name", "")).startswith("head output")]
    weights = array(values["customdata"])[:, 0]
    drawn = np.column_stack([array(values["x"]), array(values["y"])])
    assert weights.sum() == pytest.approx(1.0, abs=1e-3)
    np.testing.assert_allclose(
        [array(star["x"])[0], array(star["y"])[0]], weights @ drawn, atol=2e-3
    )


def test_looks_answer_counts_the_distinct_favourites_in_the_drawn_rows():
    at = at_id("looks")
    (z,) = grid_maps(view(at))
    np.testing.assert_allclose(z.sum(axis=1), 1.0, atol=1e-3)
    assert_right(at, str(len(set(z.argmax(axis=1).tolist()))))


def test_two_targets_answer_compares_the_drawn_bars():
    at = at_id("two_targets")
    bars = traces(view(at), "bar")
    one = array(bars[0]["y"])
    two = [array(b["y"]) for b in bars[1:]]
    tokens = toy_points(SENTENCE, 64).tokens
    a, b = 0, max(i for i, t in enumerate(tokens) if t.isalnum())  # the last word
    one_min, two_min = min(one[a], one[b]), min(two[0][a], two[1][b])
    d = 64
    assert_right(at, f"two heads of {d // 2}" if two_min > one_min else f"one head of {d}")


def test_cost_answer_is_the_parameter_ratio_from_the_cost_formula():
    at = at_id("cost")
    split = attention_cost(64, 4, 16, 11).params
    full = attention_cost(64, 4, 64, 11).params
    assert_right(at, f"×{full / split:.1f}")


def test_slicing_answer_is_head_ones_share_of_the_drawn_w_q():
    at = at_id("slicing")
    w = array(traces(view(at), "heatmap")[0]["z"])  # d_model × heads·d_head, as drawn
    block = w[:16, :16]
    assert_right(at, f"{(block**2).sum() / (w[:, :16] ** 2).sum():.0%}")


def test_residual_answer_compares_the_drawn_curves_with_and_without_the_residual():
    """The question is residual against none (issue 25): an answer naming one stack
    could be marked wrong for a 0.04 difference between two residual stacks."""
    at = at_id("residual")
    curves = [t for t in view(at)["data"] if t.get("mode", "").startswith("lines")]
    final = {t["name"]: array(t["customdata"])[-1] for t in curves}
    kept = [d for name, d in final.items() if name.endswith(", residual")]
    plain = [d for name, d in final.items() if name.endswith("no residual")]
    assert len(kept) == len(plain) == 2
    assert min(kept) > max(plain)  # the default scenario: the residual keeps the tokens apart
    assert_right(at, "the stacks with the residual")


def test_real_heads_answer_is_the_drawn_map_with_most_previous_token_weight():
    at = at_id("real_heads")
    (grid,) = traces(view(at), "heatmap")
    maps = tile_maps(grid["z"])  # (layers, heads, n, n): the drawn maps, one per head
    shares = np.diagonal(maps, offset=-1, axis1=-2, axis2=-1).mean(-1).ravel()
    best = int(np.argmax(shares))
    assert_right(at, f"layer {best // 12 + 1} · head {best % 12 + 1}")


def test_step_and_presenter_mode_round_trip_through_the_url():
    at = at_step(3, present="1")
    assert current(at) == 3 and at.toggle(key="present").value is True
    next_button = next(b for b in at.button if b.label == "Next ▶")
    next_button.click().run()
    assert current(at) == 4 and at.query_params["step"] in ("4", ["4"])
    assert at.header[0].value == lesson_text()[3].title
    at.toggle(key="present").set_value(False).run()
    assert "present" not in at.query_params


@pytest.mark.parametrize("junk", ["0", "99", "three", "-1"])
def test_a_junk_step_falls_back_to_step_one_with_a_notice(junk):
    at = at_step_raw(junk)
    assert current(at) == 1
    assert any("starting at step 1" in i.value for i in at.info)


def at_step_raw(raw: str):
    at = open_page(PAGE, step=raw)
    assert not at.exception
    return at


def test_the_score_counts_first_answers_and_resets():
    at = at_id("qkv")
    keys = next(t for t in view(at)["data"] if t.get("name") == "keys")
    right = keys["hovertext"][int(np.argmax(array(keys["customdata"])[:, 0]))]
    quiz = quiz_of(at)
    wrong = next(o for o in quiz.options if o != literal(right)).replace("\\", "")
    choosing = at.radio(key=quiz.key).set_value(wrong).run()  # chosen, not checked
    assert not choosing.warning and not choosing.success  # choosing alone answers nothing
    assert any("0 right of 0 answered" in c.value for c in at.main.caption)
    answer(at, wrong)
    # Checked, the answer is fixed: the feedback stays about the answer the score counts.
    assert at.radio(key=quiz.key).disabled and at.button(key=f"{quiz.key}_check").disabled
    assert at.warning and not at.success
    assert any("0 right of 1 answered" in c.value for c in at.main.caption)
    at.button(key="lesson_reset").click().run()
    assert any("0 right of 0 answered" in c.value for c in at.main.caption)
    answer(at, right)
    assert any("1 right of 1 answered" in c.value for c in at.main.caption)
    assert "step" not in str(quiz.key).split("_", 2)[-1]  # the URL never holds the answer
    assert all(right not in str(v) for v in at.query_params.values())


def test_the_exported_file_escapes_the_sentence_and_holds_every_step(monkeypatch):
    """The download button gets a callable that builds the file on click; the ~5 MB
    document itself is never kept in the session."""
    offered = []
    original = st.download_button

    def recording_download_button(label, data, *args, **kwargs):
        offered.append(data)
        return original(label, data, *args, **kwargs)

    monkeypatch.setattr(st, "download_button", recording_download_button)
    text = "<script>window.pwned=1</script> the cat & the <b>dog</b>"
    at = at_id("points", text=text)
    assert not at.exception
    assert at.get("download_button"), "the page offers the download"
    (build,) = offered
    assert callable(build)
    stored = at.session_state.values()
    assert not any(isinstance(value, bytes | str) and len(value) > 100_000 for value in stored)
    data = build().decode("utf-8")
    assert "<script>window.pwned=1</script>" not in data
    assert "&lt;script&gt;window.pwned=1&lt;/script&gt;" in data
    assert "<b>dog</b>" not in data
    for step in lesson_text():
        assert f"<h2>{step.title.replace(chr(39), '&#x27;')}</h2>" in data
    assert data.count("Plotly.newPlot") == len(STEPS)
    assert len(data) < 10e6


def test_the_words_file_is_validated_on_load():
    good = {"id": "a", "title": "T", "notice": ["n"], "question": "q", "because": "b", "notes": "s"}
    assert parse_steps({"step": [good]}, "x.toml")[0].id == "a"
    for bad, message in [
        ({**good, "id": "Bad id"}, "not a new lower-case name"),
        ({**good, "notice": []}, "1 to 4 sentences"),
        ({k: v for k, v in good.items() if k != "because"}, "missing because"),
        ({**good, "title": "A question much longer than the step picker holds?"}, "a short"),
        (
            {**good, "title": "A long question?" * 3, "short": "Still far too long for it?" * 2},
            "short",
        ),
    ]:
        with pytest.raises(ValueError, match=message):
            parse_steps({"step": [bad]}, "x.toml")
    with pytest.raises(ValueError, match="not a new"):
        parse_steps({"step": [good, good]}, "x.toml")
    end = {
        "title": "The last slide's title, longer than the picker holds",
        "next": [],
        "notes": "N.",
    }
    end["next"] = [{"page": "pages/home.py", "why": "w"}]
    with pytest.raises(ValueError, match="short"):
        parse_end({"end": end}, "x.toml")
    assert parse_end({"end": {**end, "short": "The end"}}, "x.toml").short_title == "The end"
    long = {**good, "title": "A question much longer than the step picker holds?", "short": "S?"}
    assert parse_steps({"step": [long]}, "x.toml")[0].short_title == "S?"
    assert parse_steps({"step": [good]}, "x.toml")[0].short_title == "T"


def test_a_quiz_always_holds_its_answer_once_and_varies_its_place():
    places = set()
    for seed in range(12):
        quiz = choice_quiz("cat", ["mat", "cat", "sat", "on", "the"], seed)
        assert quiz.options.count("cat") == 1 and quiz.right == "cat"
        assert len(quiz.options) == 4
        places.add(quiz.answer)
    assert len(places) > 1
    with pytest.raises(ValueError, match="at least one option other than the right one"):
        choice_quiz("cat", ["cat"])


def test_lecture_answer_is_the_head_whose_drawn_weights_go_to_tea_and_its():
    at = at_id("lecture")
    shares = []
    for h in (1, 2):
        keys = [t for t in view(at)["data"] if t.get("name") == "keys"][h - 1]
        weights = dict(zip(keys["hovertext"], array(keys["customdata"])[:, 0], strict=True))
        shares.append(weights["tea"] + weights["it's"])
    mostly = [f"head {h + 1}" for h, share in enumerate(shares) if share > 0.5]
    assert_right(at, mostly[0] if len(mostly) == 1 else "both" if mostly else "neither")


def playground_data(at) -> list[dict]:
    """The data of each draggable-head component on the page."""
    return [
        json.loads(e.proto.json)
        for e in at.get("bidi_component")
        if e.proto.component_name == "head_spaces_playground"
    ]


def test_lecture_step_offers_its_heads_to_drag_after_the_reveal_only():
    at = at_id("lecture", lesson_fit_seed="3")
    assert not playground_data(at)  # its live weights would tell the answer
    answer(at, "head 1")
    (data,) = playground_data(at)
    assert data["tokens"][data["query"]] == "du"
    (component,) = [
        e for e in at.get("bidi_component") if e.proto.component_name == "head_spaces_playground"
    ]
    assert component.proto.id.endswith("-lesson_playground_3")  # not the playground page's
    drawn = [t for t in view(at)["data"] if t.get("name") == "keys"]
    for head, keys in zip(data["heads"], drawn, strict=True):
        weights = head_trace(head["query"], head["keys"], head["values"]).weights[0, 0]
        static = dict(zip(keys["hovertext"], array(keys["customdata"])[:, 0], strict=True))
        # the same fit as the static picture, whose hover data rounds to four decimals
        np.testing.assert_allclose(weights, [static[t] for t in data["tokens"]], atol=5.1e-5)


def test_distances_answer_is_the_lowest_drawn_bar():
    at = at_id("distances")
    bars = traces(view(at), "bar")[0]
    assert_right(at, bars["x"][int(np.argmin(array(bars["y"])))])


def test_translation_answer_follows_the_words_of_address():
    at = at_id("translation")  # default example: "you are tired, my friend"
    assert_right(at, "du")
    sir = next(i for i, example in enumerate(EXAMPLES) if "sir" in example.english)
    at.select_slider(key="lesson_example").set_value(sir).run()
    assert any("“Sie”" in i.value for i in at.info)  # revealed: the new answer stated
    assert_right(at, "Sie")  # and a new question can still be checked


def test_after_heads_answer_is_the_drawn_heads_times_their_width():
    from attention.models.pretrained import load_pretrained

    at = at_id("after_heads")
    z = array(traces(view(at), "heatmap")[0]["z"])  # heads × hidden units
    np.testing.assert_allclose(z.sum(axis=0), 1.0, atol=1e-3)
    assert_right(at, str(z.shape[0] * load_pretrained().config.d_head))


@pytest.mark.parametrize("number", range(1, len(STEPS) + 1))
def test_a_one_word_sentence_is_explained_on_every_step(number):
    at = at_step(number, text="Hi")
    assert not at.exception and not at.error
    explained = any("cannot use your sentence" in i.value for i in at.info)
    drawn = bool(at.get("plotly_chart"))
    assert explained != drawn  # either the step draws, or it says why it cannot


def test_a_slide_moves_a_top_legend_off_its_caption():
    """The caption is written at the figure's top; a legend pinned there (the head
    figures') goes to the bottom, with the bottom margin a legend row deeper."""
    from attention.figures.head_spaces import TOP_LEGEND
    from attention.figures.lesson import for_slides

    plain = go.Figure(go.Scatter(x=[0, 1], y=[0, 1], name="keys"))
    plain.update_layout(legend=TOP_LEGEND, margin={"t": 80, "b": 10}, font={"size": 12})
    slide = for_slides(plain, ["a caption", "a second line"], 1.3, fill_height=True).layout
    assert slide.title.yref == "container" and slide.title.yanchor == "top"
    assert slide.legend.yref == "container" and slide.legend.y == 0
    assert slide.legend.yanchor == "bottom"
    assert slide.margin.b >= 10 + 1.3 * 12  # a row of 1.3 × 12 px type at least
    assert plain.layout.legend.y == TOP_LEGEND["y"]  # the figure itself is unchanged


def _two_rows(gap: float, titles: list[str]) -> go.Figure:
    """Two rows of one panel each, `gap` apart (a fraction of the plot's height), each
    titled on its top edge, and a shape spanning the lower row."""
    from attention.figures.base.grid import figure

    below, above = (0.0, (1 - gap) / 2), ((1 + gap) / 2, 1.0)
    layout = {
        "height": 700,
        "margin": {"t": 60, "b": 40},
        "xaxis": {"domain": [0, 1], "anchor": "y"},
        "yaxis": {"domain": list(below), "anchor": "x"},
        "xaxis2": {"domain": [0, 1], "anchor": "y2"},
        "yaxis2": {"domain": list(above), "anchor": "x2"},
        "annotations": [
            {
                "text": text,
                "xref": "paper",
                "yref": "paper",
                "x": 0.5,
                "y": row[1],
                "yanchor": "bottom",
                "showarrow": False,
                "font": {"size": 14},
            }
            for text, row in zip(titles, (below, above), strict=True)
        ],
        "shapes": [
            {
                "type": "rect",
                "xref": "paper",
                "yref": "paper",
                "x0": 0,
                "x1": 1,
                "y0": below[0],
                "y1": below[1],
            }
        ],
    }
    data = [{"type": "scatter", "x": [0, 1], "y": [0, 1], "xaxis": x, "yaxis": y}
            for x, y in (("x", "y"), ("x2", "y2"))]  # fmt: skip
    return figure(data, layout)


def test_a_slides_rows_of_panels_keep_room_for_their_texts_on_a_short_screen():
    """On a slide as short as `least_height`, the gap between two rows grows until it
    holds the lower row's two-line title and the upper row's tick labels, each 1.3 lines
    of their 1.3 × type (it was a fraction of a taller figure: the projector's title sat
    on the ticks above it); the titles and the shape move with their rows."""
    from attention.figures.lesson import for_slides

    slide = for_slides(
        _two_rows(0.1, ["a title<br>in two lines", "top"]), ["a caption"], 1.3,
        fill_height=True, least_height=560,
    ).layout  # fmt: skip
    (b0, t0), (b1, t1) = slide.yaxis.domain, slide.yaxis2.domain
    plot_px = 560 - slide.margin.t - slide.margin.b
    title_px = 2 * 1.3 * 14 * 1.3  # two lines of the titles' 14-px type, on a slide
    ticks_px = 1.3 * 12 * 1.3  # a line of Plotly's 12-px tick labels
    assert (b1 - t0) * plot_px >= title_px + ticks_px
    assert b0 == 0 and t1 == 1  # the rows still span the plot
    assert t0 - b0 == pytest.approx(t1 - b1)  # and share it as before
    assert [note.y for note in slide.annotations] == [t0, t1]  # the titles on their rows
    assert (slide.shapes[0].y0, slide.shapes[0].y1) == (b0, t0)


def test_a_slides_rows_of_panels_change_only_when_short_of_room():
    """Rows whose gap already holds their texts stay where the figure put them, and one
    row, or a slide outside presenter mode (no `fill_height`), is left alone."""
    from attention.figures.lesson import for_slides

    roomy = _two_rows(0.4, ["one line", "top"])
    kept = for_slides(roomy, ["a caption"], 1.3, fill_height=True, least_height=560).layout
    assert kept.yaxis.domain == roomy.layout.yaxis.domain
    tight = _two_rows(0.05, ["a title<br>in two lines", "top"])
    unfilled = for_slides(tight, ["a caption"], 1.3, least_height=560).layout
    assert unfilled.yaxis2.domain == tight.layout.yaxis2.domain


def test_a_slides_legend_under_the_plot_keeps_its_distance_from_it():
    """A legend placed under the plot in fractions of the plot's height keeps its pixels
    below it when the caption's room shrinks the plot (it had moved up onto the axis
    title)."""
    from attention.figures.lesson import for_slides

    plain = go.Figure(go.Bar(x=["a", "b"], y=[1, 2], name="bars"))
    plain.update_layout(height=440, margin={"t": 40, "b": 110}, legend={"y": -0.4})
    slide = for_slides(plain, ["a caption line", "another", "and a third"]).layout
    before = -0.4 * (440 - 40 - 110)
    after = slide.legend.y * (440 - slide.margin.t - slide.margin.b)
    assert slide.margin.t > 40
    assert after == pytest.approx(before)


def test_a_slides_caption_stays_above_the_panel_titles():
    """A grid's top panel titles stand on the plot's top edge, under the caption: the top
    margin holds the caption's lines and the titles' lines, one above the other."""
    from attention.figures.base.grid import figure, grid
    from attention.figures.lesson import for_slides

    titles = ["one head:<br>49.5% + 50.5%", "two heads"]
    panels, layout = grid(2, 2, titles)
    plain = figure([p.place({"type": "bar", "x": [1], "y": [1]}) for p in panels], layout)
    caption = ["a caption line", "a second caption line"]
    with_titles = for_slides(plain, caption, 1.3).layout.margin.t
    untitled = plain.to_dict()
    untitled["layout"]["annotations"] = []
    without = for_slides(go.Figure(untitled), caption, 1.3).layout.margin.t
    # two lines of 1.3 × the grid's title font, each 1.3 high, above the plot's edge
    title_font = plain.layout.annotations[0].font.size
    assert with_titles - without >= 2 * 1.3 * 1.3 * title_font


def test_back_and_next_under_the_step_move_like_the_ones_above():
    at = at_step(2)
    at.button(key="lesson_next_below").click().run()
    assert current(at) == 3
    at.button(key="lesson_back_below").click().run()
    assert current(at) == 2
    assert at_step(1).button(key="lesson_back_below").disabled
