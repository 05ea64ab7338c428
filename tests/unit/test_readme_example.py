"""The README's notebook example runs as written against the public API, where a notebook
user runs it: in the project's environment, from a directory that is not the repository
(the editable install of `make run` makes `attention` importable there). The paraphrase
task's importance takes minutes, so that one line is checked to resolve, not run."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys

from tests.support.paths import ROOT

README = ROOT / "README.md"
SLOW_LINE = "head_importance(model, AccuracyScore(load_paraphrase_task()))"
REPORT = """
import json
print(json.dumps({
    "weights": list(tr.weights.shape),
    "row_sums_off": float(abs(tr.weights.sum(axis=-1) - 1).max()),
    "attentions": list(run.attentions.shape[:2]),
    "resolved": [f.__name__ for f in resolved],
}))
"""


def notebook_example() -> str:
    """The first python block under "## Use it in a notebook"."""
    section = README.read_text(encoding="utf-8").split("## Use it in a notebook", 1)[1]
    return re.search(r"```python\n(.*?)```", section, re.S).group(1)


def test_the_readme_notebook_example_runs_outside_the_repository(tmp_path):
    code = notebook_example()
    assert SLOW_LINE in code
    script = tmp_path / "notebook.py"
    resolved = "resolved = (head_importance, AccuracyScore, load_paraphrase_task)"
    script.write_text(code.replace(SLOW_LINE, resolved) + REPORT, encoding="utf-8")
    environment = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    done = subprocess.run(
        [sys.executable, str(script)],
        cwd=tmp_path,
        env=environment,
        capture_output=True,
        text=True,
        timeout=240,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    report = json.loads(done.stdout.strip().splitlines()[-1])
    assert report["weights"] == [4, 10, 10]
    assert report["row_sums_off"] < 1e-6
    assert report["attentions"] == [6, 12]
    assert report["resolved"] == ["head_importance", "AccuracyScore", "load_paraphrase_task"]
