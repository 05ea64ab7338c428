"""The playground page through AppTest: it opens with the model's positions, a link's
positions reach the server's challenge check and sentence, junk in the link falls back
with a notice, and two heads with moved points meet the last challenge."""

from __future__ import annotations

from attention.teaching.challenges import check
from attention.teaching.narration.playground import weight_sentence
from attention.teaching.playground import head_trace, parse_points
from tests.support.apptest import open_page
from ui.playground import model_playground

PAGE = "pages/playground.py"


def _page(**query: str):
    at = open_page(PAGE, **query)
    assert not at.exception, at.exception
    assert not at.error, [e.value for e in at.error]
    return at


def test_the_page_opens_at_the_models_positions():
    at = _page()
    assert at.title[0].value == "Move the query yourself"
    # the playground's own component (app.py also draws the media reporters on every page)
    assert [c.key for c in at.get("bidi_component")].count("playground") == 1
    model = model_playground()
    head = model.heads[0]
    weights = head_trace(head.query, head.keys, head.values).weights[0, 0]
    said = weight_sentence(model.tokens, model.query_index, weights)
    assert any(said in c.value for c in at.caption)
    assert at.info[0].value.startswith("**Not yet**")  # challenge 1 at the fitted query
    assert "pg_q1" not in at.query_params


def test_a_links_query_meets_the_first_challenge():
    at = _page(pg_q1="-2,-4")
    model = model_playground()
    head = model.heads[0]
    query = parse_points("-2,-4", 1)[0]
    weights = head_trace(query, head.keys, head.values).weights[0, 0]
    assert weights[model.tokens.index("tea")] > 0.6  # the link's point, not the model's
    assert at.success[0].value.startswith("**Met**")
    assert at.query_params["pg_q1"] == "-2.0000,-4.0000"


def test_junk_in_the_link_falls_back_with_a_notice():
    at = _page(pg_q1="nan,1", pg_temp="-3", pg_k1="1,2;3,4")
    notices = [i.value for i in at.info if "not valid" in i.value]
    assert len(notices) == 3
    assert all(name not in at.query_params for name in ("pg_q1", "pg_temp", "pg_k1"))
    assert at.slider(key="pg_temp").value == 1.0


def test_two_heads_with_a_moved_key_meet_the_last_challenge():
    model = model_playground()
    keys = model.heads[1].keys.copy()
    keys[model.tokens.index("for")] = [3.5, -3.5]  # out of the box the other keys make
    written = ";".join(f"{x},{y}" for x, y in keys)
    at = _page(pg_heads="2", pg_challenge="4", pg_q1="-2,-4", pg_q2="3,-3", pg_k2=written)
    assert at.success[0].value.startswith("**Met**")
    one_head = _page(pg_challenge="4", pg_q1="-2,-4")
    assert "switch to two heads" in one_head.info[0].value
    # the page's verdict is the check's on the engine's weights for the same points
    weights = [
        head_trace(parse_points("-2,-4", 1)[0], model.heads[0].keys, model.heads[0].values),
        head_trace(parse_points("3,-3", 1)[0], keys, model.heads[1].values),
    ]
    assert check(4, model.tokens, [t.weights[0, 0] for t in weights]).met
