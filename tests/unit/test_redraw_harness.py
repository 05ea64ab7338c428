"""The redraw benchmark's arithmetic: percentiles and a Chrome trace's self times."""

import numpy as np
import pytest

from harness.redraw import main_thread_self_times, percentile


@pytest.mark.parametrize("q", [0, 25, 50, 95, 100])
def test_percentile_matches_numpy(q):
    values = list(np.random.default_rng(3).normal(size=11))
    assert percentile(values, q) == pytest.approx(np.percentile(values, q))


def _event(name, start, duration, tid=1):
    return {"ph": "X", "name": name, "ts": start, "dur": duration, "pid": 7, "tid": tid}


def test_self_time_leaves_out_nested_events_and_other_threads():
    trace = {
        "traceEvents": [
            {
                "ph": "M",
                "name": "thread_name",
                "pid": 7,
                "tid": 1,
                "args": {"name": "CrRendererMain"},
            },
            {"ph": "M", "name": "thread_name", "pid": 7, "tid": 2, "args": {"name": "Compositor"}},
            _event("RunTask", 0, 10_000),  # 10 ms holding a 6 ms call that holds 2 ms layout
            _event("FunctionCall", 1_000, 6_000),
            _event("Layout", 2_000, 2_000),
            _event("RunTask", 20_000, 1_000),
            _event("Paint", 0, 50_000, tid=2),  # not the main thread
        ]
    }
    times = main_thread_self_times(trace)
    assert times == pytest.approx({"RunTask": 4 + 1, "FunctionCall": 4, "Layout": 2})
