"""State and cached computation of the "Do we need all these heads?" page: which heads
are switched off (one string, kept in the session and in the URL as `heads_off`), and
the cached results per mask: the sentence's cosine, the paraphrase accuracy, head
importance, and the pruning curves (one per server). The long ones are run as shared
jobs by ui.jobs; `@computation` makes a cache miss wait for a free worker, not a hit."""

from __future__ import annotations

from collections.abc import Callable
from functools import cache

import numpy as np
import streamlit as st

from attention.analysis.ablation import AccuracyScore, CosineScore, head_importance
from attention.analysis.head_masks import format_heads_off, layer_off, only_head, parse_heads_off
from attention.analysis.heads_needed import embedding_cosine, masked_accuracy
from attention.analysis.paraphrase import ParaphraseTask, load_paraphrase_task
from attention.analysis.pruning import PruningCurve, prune_by_importance, prune_in_random_order
from shared_work.job_runner import computation
from ui.cache_policy import PER_USER_TTL
from ui.pretrained import pretrained_model
from view_state import url_params

URL_KEY = "heads_off"
_STATE = "_heads_off"  # the page's own copy, kept when another page is open
_URL_NOTICE = "_heads_off_notice"
PILLS = "heads_layer_{}"  # one multi-select per layer (1-based): the heads that are on
Progress = Callable[..., None] | None


@cache
def paraphrase_task() -> ParaphraseTask:
    """The task's triplets, read and checked once per process."""
    return load_paraphrase_task()


def shape() -> tuple[int, int]:
    """(layers, heads) of the loaded model."""
    config = pretrained_model().config
    return config.layers, config.heads


def current_mask() -> np.ndarray:
    """The (layers, heads) mask of the heads switched on in this session; on a session's
    first run it comes from the URL (junk: every head on, and a notice to show)."""
    if _STATE not in st.session_state:
        values, notices = url_params.read(st.query_params.to_dict(), (URL_KEY,))
        if notices:
            st.session_state[_URL_NOTICE] = " ".join(notices)
        st.session_state[_STATE] = values.get(URL_KEY, url_params.row(URL_KEY).default)
    return parse_heads_off(st.session_state[_STATE], *shape())


def url_notice() -> str | None:
    return st.session_state.pop(_URL_NOTICE, None)


def set_mask(mask: np.ndarray) -> None:
    """Make `mask` the session's switches: the pills follow on the next draw."""
    st.session_state[_STATE] = format_heads_off(mask)


def prepare_pills(mask: np.ndarray) -> None:
    """Before the pills are drawn: each layer's selection = its heads that are on."""
    for layer, row in enumerate(mask):
        st.session_state[PILLS.format(layer + 1)] = [int(h) + 1 for h in np.flatnonzero(row)]


def read_pills() -> None:
    """Callback of every layer's pills: the session's mask from all their selections."""
    layers, heads = shape()
    mask = np.zeros((layers, heads), np.float32)
    for layer in range(layers):
        on = st.session_state.get(PILLS.format(layer + 1)) or []
        mask[layer, [h - 1 for h in on]] = 1.0
    set_mask(mask)


def switch_layer_off(layer: int) -> None:
    """Callback: every head of `layer` (1-based) off, the rest as they are."""
    set_mask(layer_off(current_mask(), layer - 1))


def keep_only_head(head: int) -> None:
    """Callback: head `head` (1-based) of every layer on, every other head off."""
    set_mask(only_head(*shape(), head - 1))


def reset() -> None:
    set_mask(np.ones(shape(), np.float32))


def write_url(mask: np.ndarray) -> None:
    """The switched-off heads into the URL; no parameter when every head is on."""
    url_params.write(st.query_params, URL_KEY, format_heads_off(mask))


@st.cache_data(max_entries=256, ttl=PER_USER_TTL, show_spinner=False)
def sentence_cosine(text: str, heads_off: str) -> float:
    """The sentence embedding's cosine to the one with every head on, under a mask."""
    return embedding_cosine(pretrained_model(), text, parse_heads_off(heads_off, *shape()))


@st.cache_data(max_entries=256, ttl=PER_USER_TTL, show_spinner=False)
@computation
def task_accuracy(heads_off: str, _progress: Progress = None) -> float:
    """The paraphrase task's accuracy under a mask."""
    mask = parse_heads_off(heads_off, *shape())
    return masked_accuracy(pretrained_model(), paraphrase_task(), mask, _progress)


@st.cache_data(max_entries=64, ttl=PER_USER_TTL, show_spinner=False)
@computation
def importance(score: str, text: str, heads_off: str, _progress: Progress = None) -> np.ndarray:
    """(layers, heads) importance on top of a mask, by "cosine" on `text` or by
    "accuracy" on the paraphrase task (then `text` is not read: pass "")."""
    scorer = CosineScore((text,)) if score == "cosine" else AccuracyScore(paraphrase_task())
    mask = parse_heads_off(heads_off, *shape())
    return head_importance(pretrained_model(), scorer, mask, _progress)


@st.cache_data(max_entries=2, ttl=PER_USER_TTL, show_spinner=False)
@computation
def pruning_curves(
    rescore_every: int, seeds: tuple[int, ...], measure_every: int, _progress: Progress = None
) -> tuple[PruningCurve, list[PruningCurve]]:
    """The paraphrase accuracy pruned least important first (importance measured again
    every `rescore_every` heads) and in random orders (one per seed), each curve measured
    every `measure_every` heads; progress reports (stage, done, total), stage 0 then 1."""
    model, score = pretrained_model(), AccuracyScore(paraphrase_task())

    def stage(index: int) -> Progress:
        return None if _progress is None else lambda done, total: _progress(index, done, total)

    curve = prune_by_importance(model, score, rescore_every, stage(0), measure_every)
    randoms = prune_in_random_order(model, score, seeds, stage(1), measure_every)
    return curve, randoms
