"""The playground's pure parts: the engine pass over dragged points, the link's point
format, the challenges' checks, the sentences, and the component's JavaScript maths run
in Node against the engine."""

from __future__ import annotations

import json
import re
import shutil
import subprocess

import numpy as np
import pytest

from attention.teaching.challenges import CHALLENGES, check
from attention.teaching.lecture_picture import lecture_picture
from attention.teaching.narration.playground import percent, verdict, weight_sentence
from attention.teaching.playground import (
    BOUND,
    clamp,
    format_points,
    head_trace,
    parse_points,
    playground_from_fit,
)
from tests.support.paths import ROOT
from view_state import url_params

JS = ROOT / "ui" / "components" / "playground.js"
TOKENS = ("Hast", "du", "tea", "for", "me", "?", "Ja", ",", "it's", "hot", ".")


@pytest.fixture(scope="module")
def fit():
    return lecture_picture(0)


def test_the_model_positions_give_the_lectures_own_weights(fit):
    """Dragging nothing: the engine over the playground's points equals the lecture's
    self-attention pass for "du" in each head, ★ included."""
    playground = playground_from_fit(fit)
    du = playground.query_index
    for h, head in enumerate(playground.heads):
        trace = head_trace(head.query, head.keys, head.values)
        np.testing.assert_allclose(trace.weights[0, 0], fit.trace.weights[h, du], atol=1e-12)
        np.testing.assert_allclose(trace.heads[0, 0], fit.trace.heads[h, du], atol=1e-12)


def test_head_trace_is_the_scaled_softmax_of_dot_products():
    rng = np.random.default_rng(3)
    q, keys, values = rng.uniform(-4, 4, 2), rng.uniform(-4, 4, (6, 2)), rng.normal(size=(6, 2))
    for temperature in (0.1, 1.0, 5.0):
        scores = keys @ q / (np.sqrt(2) * temperature)
        expected = np.exp(scores - scores.max()) / np.exp(scores - scores.max()).sum()
        trace = head_trace(q, keys, values, temperature)
        np.testing.assert_allclose(trace.weights[0, 0], expected, rtol=1e-12)
        np.testing.assert_allclose(trace.heads[0, 0], expected @ values, rtol=1e-12)


def test_points_read_back_and_junk_is_refused():
    points = np.array([[1.25, -3.5], [0.0, 4.0]])
    np.testing.assert_array_equal(parse_points(format_points(points), 2), points)
    for junk in ("1,2", "1,2;3", "nan,1;0,0", "inf,0;0,0", "5,0;0,0", "a,b;0,0", "1,2,3;0,0"):
        with pytest.raises(ValueError):
            parse_points(junk, 2)
    np.testing.assert_array_equal(clamp([[9.0, -9.0]]), [[BOUND, -BOUND]])


def test_the_url_table_keeps_untouched_heads_out_and_words_junk():
    values, notices = url_params.read(
        {"pg_q1": "-2,-4", "pg_k2": "1,2", "pg_heads": "3"}, ("pg_q1", "pg_k2", "pg_heads")
    )
    assert values == {"pg_q1": "-2.0000,-4.0000", "pg_k2": "", "pg_heads": 1}
    assert len(notices) == 2 and "model's own positions" in notices[0]
    assert url_params.to_url("pg_q1", "") is None


def _weights(**shares: float) -> np.ndarray:
    """A weight row over TOKENS with the given shares; the rest spread evenly."""
    row = np.zeros(len(TOKENS))
    for token, w in shares.items():
        row[TOKENS.index(token.replace("its", "it's"))] = w
    rest = [i for i in range(len(TOKENS)) if row[i] == 0]
    row[rest] = (1 - row.sum()) / len(rest)
    return row


@pytest.mark.parametrize(
    ("number", "met", "refused"),
    [
        (1, [_weights(tea=0.61)], [_weights(tea=0.59)]),
        (2, [_weights(tea=0.45, its=0.41)], [_weights(tea=0.61, its=0.3)]),
        (3, [_weights(tea=0.48, **{"for": 0.46})], [_weights(tea=0.7, **{"for": 0.2})]),
        (4, [_weights(tea=0.7), _weights(**{"for": 0.65})], [_weights(tea=0.7), _weights()]),
    ],
)
def test_each_challenge_is_met_and_refused(number, met, refused):
    yes, no = check(number, TOKENS, np.array(met)), check(number, TOKENS, np.array(refused))
    assert yes.met and not no.met
    assert verdict(yes).startswith(("**Met**", "**No — and you got as close"))
    assert verdict(no).startswith("**Not yet**")


def test_one_head_can_never_give_two_tokens_more_than_60_percent():
    rng = np.random.default_rng(0)
    for _ in range(2000):
        row = rng.dirichlet(np.full(len(TOKENS), 0.2))
        assert not (row[2] > 0.6 and row[3] > 0.6)
    outcome = check(4, TOKENS, _weights(tea=0.9)[None])
    assert not outcome.met and "switch to two heads" in verdict(outcome)
    assert len(CHALLENGES) == 4


def test_the_weight_sentence_names_the_two_largest_shares():
    row = _weights(tea=0.62, its=0.31)
    assert weight_sentence(TOKENS, 1, row) == "“du” gives 62 % to “tea”, 31 % to “it's”"
    assert (percent(0.625), percent(0.0), percent(1.0)) == ("63 %", "0 %", "100 %")
    # A weight above 0 never reads 0 % and one below 1 never 100 %.
    assert (percent(0.0049), percent(0.9951)) == ("<1 %", ">99 %")


NODE_SCRIPT = """
import * as pg from %s;
const cases = JSON.parse(process.argv[2]);
console.log(JSON.stringify(cases.map((c) => {
  const { scores, weights } = pg.headWeights(c.q, c.keys, 2, c.t);
  return { scores, weights, star: pg.weightedSum(weights, c.values),
           sentence: pg.sentence(c.tokens, 1, weights), clamped: pg.clampPoint(c.far, 4),
           percents: c.shares.map(pg.percent) };
})));
"""


@pytest.mark.skipif(shutil.which("node") is None, reason="Node.js is not installed")
def test_the_components_maths_equals_the_engine(tmp_path):
    """The browser's own functions (run in Node) against the engine within 1e-6, and its
    sentence equal to the server's."""
    module = tmp_path / "playground.mjs"
    module.write_text(JS.read_text(encoding="utf-8"))
    script = tmp_path / "run.mjs"
    script.write_text(NODE_SCRIPT % json.dumps(str(module)))
    rng = np.random.default_rng(11)
    cases = [
        {
            "q": rng.uniform(-4, 4, 2).tolist(),
            "keys": rng.uniform(-4, 4, (11, 2)).tolist(),
            "values": rng.normal(size=(11, 2)).tolist(),
            "t": float(rng.choice([0.1, 0.5, 1.0, 3.0])),
            "tokens": list(TOKENS),
            "far": [float("1e9"), -7.5],
            "shares": [0.0, 0.0049, 0.005, 0.125, 0.994, 0.995, 0.9999, 1.0],
        }
        for _ in range(20)
    ]
    done = subprocess.run(
        ["node", str(script), json.dumps(cases)], capture_output=True, text=True, check=True
    )
    for case, got in zip(cases, json.loads(done.stdout), strict=True):
        trace = head_trace(case["q"], case["keys"], case["values"], case["t"])
        np.testing.assert_allclose(got["weights"], trace.weights[0, 0], atol=1e-6)
        np.testing.assert_allclose(got["scores"], trace.scores[0, 0], atol=1e-6)
        np.testing.assert_allclose(got["star"], trace.heads[0, 0], atol=1e-6)
        assert got["sentence"] == weight_sentence(TOKENS, 1, trace.weights[0, 0])
        assert got["clamped"] == [BOUND, -BOUND]
        assert got["percents"] == [percent(share) for share in case["shares"]]


def test_the_score_sentence_says_which_product_is_the_projection_times_q():
    """|q| times the key's projection on the query's direction is q·k; the score divides it
    by √d·T. The side panel's sentence once gave that product as the score itself."""
    sentence = re.search(r"`score = q·k / \(√.*?`", JS.read_text(encoding="utf-8")).group(0)
    assert "q·k is the key's projection on the query's direction" in sentence
    assert "): the key's projection" not in sentence
