"""Cached runs of the hand-built translation example (block page §3, and the
Attention-maps page's cross-attention with the translation heads)."""

from __future__ import annotations

from dataclasses import dataclass

import streamlit as st

from attention.core.engine import AttentionTrace
from attention.models.translation import (
    TranslationModel,
    TranslationTrace,
    build_translation_model,
    head_titles,
)
from ui.cache_policy import PER_USER_TTL


@st.cache_resource(show_spinner=False)
def translation_model() -> TranslationModel:
    """The hand-built model: one per server (it is fixed)."""
    return build_translation_model()


@st.cache_data(max_entries=32, ttl=PER_USER_TTL, show_spinner=False)
def run_translation(source: str, target: str) -> TranslationTrace:
    """The example on one sentence pair; ValueError with a readable message."""
    return translation_model().run(source, target)


@dataclass(frozen=True)
class TranslationCross:
    """The translation model's cross-attention, for the Attention-maps page: German tokens
    (after <s>) ask, English words answer; one title per hand-built head."""

    query_tokens: list[str]
    key_tokens: list[str]
    trace: AttentionTrace
    titles: list[str]


def translation_cross(english: str, german: str) -> TranslationCross:
    """The cross-attention of the example on (English, German); ValueError naming the
    words outside its vocabulary."""
    example = run_translation(english, german)
    return TranslationCross(
        list(example.target_tokens),
        list(example.source_tokens),
        example.cross,
        head_titles("cross"),
    )
