"""One colour convention on every page: every heatmap that shows negative values uses the
palette's diverging scale (red < 0 < blue) on a colour axis symmetric about 0, checked
on every chart of every page at the defaults and with the settings that add charts."""

from __future__ import annotations

import json

import numpy as np
import pytest
from streamlit.testing.v1 import AppTest

from attention.figures.base.palette import DIVERGING_SCALE
from tests.apptest import array, colour_scale, open_page


def _trained(at: AppTest) -> AppTest:
    """Page 3 after training its four variants at a small size (adds §4's charts)."""
    for key, value in {"wh_d_model": 16, "wh_heads": 2, "wh_steps": 300}.items():
        at.select_slider(key=key).set_value(value)
    at.slider(key="wh_symbols").set_value(4)
    at.slider(key="wh_seq_len").set_value(4)
    at.run()
    at.button(key="wh_train").click().run()
    return at


# (page, URL settings, action, how many signed heatmaps it draws)
VIEWS = [
    ("pages/home.py", {}, None, 0),
    ("pages/head_spaces.py", {}, None, 0),
    ("pages/head_spaces.py", {"heads": "8", "causal": "1"}, None, 0),
    ("pages/attention_maps.py", {}, None, 0),
    ("pages/attention_maps.py", {"maps_kind": "cross"}, None, 0),
    ("pages/why_heads.py", {}, None, 2),  # W_Q as it is and sliced
    ("pages/why_heads.py", {}, _trained, 2),
    ("pages/real_model.py", {"real_role": "[SEP]", "real_stretch": "true"}, None, 0),
    ("pages/block.py", {}, None, 3),  # concatenated heads, W_O's update, hidden units
    ("pages/block.py", {"heads": "16", "d_model": "64", "block_act": "ReLU"}, None, 2),  # ReLU ≥ 0
]


@pytest.mark.parametrize(("path", "query", "action", "expected"), VIEWS)
def test_signed_heatmaps_use_the_one_diverging_scale(path, query, action, expected):
    at = open_page(path, **query)
    if action:
        at = action(at)
    assert not at.exception, at.exception
    signed = 0
    for chart in at.get("plotly_chart"):
        spec = json.loads(chart.proto.spec)
        for trace in spec["data"]:
            if trace.get("type") != "heatmap" or not (np.nanmin(array(trace["z"])) < 0):
                continue
            (scale, low, high), where = colour_scale(spec, trace), chart.proto.id
            assert scale == DIVERGING_SCALE, where
            assert low == -high, where
            assert high >= np.nanmax(np.abs(array(trace["z"]))) - 1e-3, where
            signed += 1
    assert signed == expected
