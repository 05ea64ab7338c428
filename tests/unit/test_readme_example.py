"""The README's notebook example runs as written against the public API (the layout may
move modules; the example must keep working). The paraphrase task's importance takes
minutes, so that one line is checked to resolve, not run."""

from __future__ import annotations

import re

import numpy as np

from tests.support.paths import ROOT

README = ROOT / "README.md"
SLOW_LINE = "head_importance(model, AccuracyScore(load_paraphrase_task()))"


def notebook_example() -> str:
    """The first python block under "## Use it in a notebook"."""
    section = README.read_text(encoding="utf-8").split("## Use it in a notebook", 1)[1]
    return re.search(r"```python\n(.*?)```", section, re.S).group(1)


def test_the_readme_notebook_example_runs():
    code = notebook_example()
    assert SLOW_LINE in code
    names: dict[str, object] = {}
    exec(code.replace(SLOW_LINE, "(head_importance, AccuracyScore, load_paraphrase_task)"), names)
    assert names["tr"].weights.shape == (4, 10, 10)
    np.testing.assert_allclose(names["tr"].weights.sum(axis=-1), 1.0, atol=1e-6)
    assert names["run"].attentions.shape[:2] == (6, 12)
