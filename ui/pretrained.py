"""Cached access to the pretrained model for the pages: one loaded model per server, one
forward pass (with its role scores) per sentence, one vocabulary PCA per server."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import streamlit as st

from attention.analysis.ffn_reads import BlockReads, head_block_reads
from attention.analysis.head_roles import role_scores
from attention.core.read_only import read_only
from attention.models.pretrained import ModelError, ModelTrace, PretrainedModel, load_pretrained
from attention.models.pretrained.vocabulary import VocabularyEmbeddings
from attention.models.toy import split_words
from attention.teaching.narration import real_model as narration
from ui.cache_policy import PER_USER_TTL


@dataclass(frozen=True)
class RealRun:
    """The model's trace on one sentence and each head's role scores (layers, heads)."""

    trace: ModelTrace
    roles: dict[str, np.ndarray]


@st.cache_resource(show_spinner="Loading MiniLM and checking its SHA-256 (once per server)…")
def pretrained_model() -> PretrainedModel:
    """The verified model, shared by all sessions. A ModelError is not cached: the next
    run looks again, so installing the package fixes a running app."""
    return load_pretrained()


def model_or_stop() -> PretrainedModel:
    """The model for a page that shows nothing without it: when it is missing, the page
    says why and stops."""
    try:
        return pretrained_model()
    except ModelError as error:
        st.error(str(error))
        st.stop()


@st.cache_resource(show_spinner="Fitting the vocabulary PCA (once per server)…")
def vocabulary_embeddings() -> VocabularyEmbeddings:
    """Real word vectors at any d_model for the toy source (read-only: shared)."""
    return read_only(VocabularyEmbeddings(pretrained_model()))


# cache_resource, not cache_data: at 512 tokens the attentions alone are 75 MB, which
# cache_data would copy on every rerun. The arrays are made read-only before sharing.
@st.cache_resource(max_entries=8, ttl=PER_USER_TTL, show_spinner="Running MiniLM on the sentence…")
def run_real(text: str) -> RealRun:
    """Forward pass and role scores for `text` (ValueError for empty text)."""
    trace = pretrained_model().run(text)
    return read_only(RealRun(trace, role_scores(trace.attentions, trace.tokens)))


@st.cache_data(max_entries=8, ttl=PER_USER_TTL, show_spinner=False)
def minilm_reads(layer: int) -> BlockReads:
    """How MiniLM's layer `layer` (1-based) feed-forward units read each head's block."""
    return head_block_reads(pretrained_model().block(layer - 1))


def reading_notice(text: str, tokens: list[str]) -> str | None:
    """The notice that MiniLM is English and uncased, when `text` (made into `tokens`) has
    words with letters outside English's or pieces it could not read ([UNK])."""
    foreign = [w for w in split_words(text)[0] if w.isalpha() and not w.isascii()]
    pieces = pretrained_model().tokenizer.pieces
    examples = [(word, pieces(word)[1]) for word in dict.fromkeys(foreign)][:2]
    return narration.reading_notice(examples, tokens.count("[UNK]"))
