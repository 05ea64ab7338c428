"""The live class's computed words, histogram and results CSV, checked against counts
worked out by hand: sentences state the counts they are given, options are escaped, the
bars draw each round's counts in option order, the CSV has one row per step, round and
option and holds nothing else."""

from __future__ import annotations

import csv
import io

from attention.figures.live_class import vote_bars
from attention.teaching.narration import live_class as words
from classroom.results_csv import COLUMNS, results_csv
from classroom.store import RoundResult

OPTIONS = ["head 1", "*head* 2", "both"]
ROUNDS = {1: {"head 1": 3, "*head* 2": 1}, 2: {"both": 4}}


def test_counts_are_worded_with_their_numbers():
    assert words.class_counts(1, 0) == "**1** student joined · **0** answered this round"
    assert words.class_counts(12, 8) == "**12** students joined · **8** answered this round"
    assert words.class_counts(12, 8, 2).endswith("this round · **2** exploring alone")
    assert words.class_counts(12, 8, 0, always=True).endswith("· **0** exploring alone")


def test_the_summary_states_each_rounds_counts_escaped():
    summary = words.vote_summary(OPTIONS, ROUNDS)
    assert summary.startswith("Round 1: 4 answers: “head 1” 3, “\\*head\\* 2” 1, “both” 0.")
    assert "Round 2: 4 answers:" in summary and "“both” 4" in summary
    assert words.vote_summary(OPTIONS, {1: {}}) == "Round 1: no answers yet."


def test_the_table_has_a_row_per_option_and_a_column_per_round():
    rows = words.vote_rows(OPTIONS, ROUNDS)
    assert rows == [
        {"answer": "head 1", "round 1": 3, "round 2": 0},
        {"answer": "*head* 2", "round 1": 1, "round 2": 0},
        {"answer": "both", "round 1": 0, "round 2": 4},
    ]


def test_the_receipt_says_whether_the_answer_can_still_change():
    assert "until the reveal" in words.acknowledged("head 1", vote_open=True)
    assert (
        words.acknowledged("<b>x</b>", vote_open=False)
        == "Your answer is in: “&lt;b&gt;x&lt;/b&gt;”."
    )


def test_the_bars_draw_each_rounds_counts_in_option_order():
    figure = vote_bars(OPTIONS, ROUNDS).to_dict()
    traces = figure["data"]
    assert [t["name"] for t in traces] == ["round 1", "round 2"]
    assert [t["y"] for t in traces] == [OPTIONS, OPTIONS]
    assert [t["x"] for t in traces] == [[3, 1, 0], [0, 0, 4]]
    assert figure["layout"]["xaxis"]["title"]["text"] == "students"
    assert figure["layout"]["showlegend"] is True
    assert vote_bars(OPTIONS, {1: {}}).to_dict()["layout"]["showlegend"] is False


def test_answers_that_read_as_numbers_stay_answers():
    """Plotly.js reads "75%" or "2" on an axis of unstated type as a number, and would
    draw step 9's answers on a 0-100 scale: the answers' axis says it holds categories."""
    layout = vote_bars(["75%", "100%", "0%", "25%"], {1: {"25%": 2}}).to_dict()["layout"]
    assert layout["yaxis"]["type"] == "category"


def test_the_csv_has_a_row_per_step_round_and_option():
    results = [
        RoundResult(step=2, round=1, votes={"yes": 2, "no": 1}, answered=3),
        RoundResult(step=1, round=1, votes={"a,b": 1}, answered=1),
    ]
    rows = list(csv.reader(io.StringIO(results_csv(results))))
    assert rows[0] == list(COLUMNS)
    assert rows[1:] == [  # no right answer known: no share
        ["1", "1", "a,b", "1", "1", ""],
        ["2", "1", "no", "1", "3", ""],
        ["2", "1", "yes", "2", "3", ""],
    ]
    assert results_csv([]) == ",".join(COLUMNS) + "\n"


def test_the_csv_gives_each_round_its_share_right():
    """Hand counts: step 3 round 1, 2 of 5 right; round 2, 4 of 5; step 4's right answer
    got no vote; step 5's right answer is unknown."""
    results = [
        RoundResult(step=3, round=1, votes={"A": 2, "B": 3}, answered=5, right="A"),
        RoundResult(step=3, round=2, votes={"A": 4, "B": 1}, answered=5, right="A"),
        RoundResult(step=4, round=1, votes={"x": 1}, answered=1, right="z"),
        RoundResult(step=5, round=1, votes={"y": 2}, answered=2),
    ]
    rows = list(csv.reader(io.StringIO(results_csv(results))))
    share = {(r[0], r[1]): r[5] for r in rows[1:]}
    assert share == {("3", "1"): "0.400", ("3", "2"): "0.800", ("4", "1"): "0.000", ("5", "1"): ""}
    assert [r[5] for r in rows[1:3]] == ["0.400", "0.400"]  # on each option's row


def test_the_class_question_is_plain_text_and_shown_escaped():
    template = "Which token's key gets the most weight from “{focus}”'s query in head {head}?"
    asked = words.class_question(template, {"focus": "*b*<i>", "head": 2})
    assert asked == "Which token's key gets the most weight from “*b*<i>”'s query in head 2?"
    shown = words.shown_question(asked)
    assert shown.startswith("**The question:** ")
    assert "<i>" not in shown and "&lt;i&gt;" in shown and "\\*b\\*" in shown
