"""A session keeps no past run alive. Streamlit keeps the metadata of every widget id a
session has drawn, callbacks included (1.67 prunes the values of stale widgets, not
their metadata), and a chart's id changes with its figure. A callback defined in a page
holds that run's whole page namespace (its arrays, traces, figures), so each new figure
pinned a past run's data until the session ended: +25 MB per exploring student in
benchmarks/bench_classroom.py. Counted here as the page namespaces still alive after
the sentence changed several times."""

from __future__ import annotations

import gc

import pytest

from harness.browser import ROOT
from tests.support.apptest import open_page

SENTENCES = [
    "The cat sat on the mat.",
    "A dog ran in the park today.",
    "Birds sing at dawn in spring.",
    "She read the long letter twice.",
    "Rain fell on the quiet town.",
]
PAGES = [
    "head_spaces",
    "attention_maps",
    "block",
    "why_heads",
    "real_model",
    pytest.param("heads_needed", marks=pytest.mark.slow),  # ablation on the task
]


def _live_namespaces(page: str) -> int:
    """How many executions of the page's script still have their globals alive."""
    script = str(ROOT / "pages" / f"{page}.py")
    gc.collect()
    return sum(1 for o in gc.get_objects() if isinstance(o, dict) and o.get("__file__") == script)


@pytest.mark.parametrize("page", PAGES)
def test_new_sentences_leave_no_past_run_alive(page):
    earlier = _live_namespaces(page)  # other tests' sessions may still hold theirs
    at = open_page(f"pages/{page}.py")
    for sentence in SENTENCES:
        at.sidebar.text_area(key="text").input(sentence).run()
        assert not at.exception, at.exception
    assert _live_namespaces(page) - earlier <= 1  # the last run's, which the session shows
