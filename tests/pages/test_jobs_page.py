"""Training on "Why several heads?" as a shared job, through AppTest: a widget moved while
the model trains stops the page's run, not the training, which the next run picks up."""

from __future__ import annotations

import threading

import pytest

from tests.pages.test_why_heads_page import open_page
from tests.support.apptest import SMALL_TRAINING, array, chart
from ui.why_heads import experiments

WAIT = 60.0


def test_moving_a_widget_during_training_does_not_restart_it(monkeypatch):
    trained_seeds, release = [], threading.Event()
    compare_variants = experiments.compare_variants

    def held_at_first_report(config, seed, progress):
        trained_seeds.append(seed)

        def report(*event):
            progress(*event)
            assert release.wait(WAIT), "the test never let training go on"

        return compare_variants(config, seed, report)

    monkeypatch.setattr(experiments, "compare_variants", held_at_first_report)
    experiments._comparison.clear()  # train for real, not from an earlier test's cache
    at = open_page()
    for key, value in SMALL_TRAINING.items():
        at.select_slider(key=key).set_value(value)
    at.slider(key="wh_symbols").set_value(4)
    at.slider(key="wh_seq_len").set_value(4)
    at.run()
    # The run that trains is stopped from outside while it waits, as a widget move does.
    with pytest.raises(RuntimeError, match="timed out"):
        at.button(key="wh_train").click().run(timeout=3)
    assert len(trained_seeds) == 1  # training had started

    at.slider(key="wh_rank_n").set_value(5)  # a widget training does not depend on
    release.set()
    at.run(timeout=WAIT)
    assert not at.exception, at.exception
    assert len(trained_seeds) == 1  # the new run attached to the same training
    curves = chart(at, "wh_loss")["data"]
    assert len(curves) == 2 * 4  # each variant's raw and smoothed loss
    assert all(len(array(curve["y"])) == SMALL_TRAINING["wh_steps"] for curve in curves)
