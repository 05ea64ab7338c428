"""Memory cannot grow without bound with a class: every Streamlit cache in ui/ that takes
arguments has a max_entries and a ttl, and the config bounds st.cache_data's bytes."""

from __future__ import annotations

import ast
import tomllib

import pytest
import streamlit as st

from tests.support.paths import ROOT

# st.cache_data, st.cache_resource, and ui.data's st.cache_data keyed on a scenario's computation
CACHES = {"cache_data", "cache_resource", "cached_per_computation"}


def _cached_functions() -> list[tuple[str, ast.FunctionDef, set[str]]]:
    """(file, function, keyword names of its st.cache_* decorator) for every cached function."""
    found = []
    for path in sorted((ROOT / "ui").glob("*.py")):
        for node in ast.walk(ast.parse(path.read_text())):
            if not isinstance(node, ast.FunctionDef):
                continue
            for decorator in node.decorator_list:
                call = decorator if isinstance(decorator, ast.Call) else None
                target = call.func if call else decorator
                name = (
                    target.attr if isinstance(target, ast.Attribute) else getattr(target, "id", "")
                )
                if name in CACHES:
                    keywords = {k.arg for k in call.keywords} if call else set()
                    found.append((path.name, node, keywords))
    return found


def test_ui_has_cached_functions():
    assert len(_cached_functions()) >= 10


@pytest.mark.parametrize(
    ("name", "function", "keywords"),
    [c for c in _cached_functions() if c[1].args.args],
    ids=lambda v: v.name if isinstance(v, ast.FunctionDef) else None,
)
def test_every_cache_with_arguments_is_bounded_and_expires(name, function, keywords):
    """Bounded by max_entries; data expires by ttl, while a resource that must outlive
    sessions (the class store) is closed by its on_release when the bound drops it."""
    assert "max_entries" in keywords, f"{name}:{function.name} has {sorted(keywords)}"
    assert keywords & {"ttl", "on_release"}, f"{name}:{function.name} has {sorted(keywords)}"


def test_config_bounds_cache_data_bytes_and_skips_the_per_run_gc():
    config = tomllib.loads((ROOT / ".streamlit" / "config.toml").read_text())
    assert config["server"]["maxCacheDataSize"].endswith(("mb", "gb"))
    assert config["runner"]["postScriptGC"] is False


def test_config_names_only_options_this_streamlit_knows():
    """A renamed or removed option would be ignored silently by the server."""
    config = tomllib.loads((ROOT / ".streamlit" / "config.toml").read_text())
    for section, options in config.items():
        for name in options:
            st.get_option(f"{section}.{name}")  # RuntimeError for an unknown option
    assert config["server"]["fileWatcherType"] == "none"
