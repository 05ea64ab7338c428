"""The block page's §3: encoder self-, decoder causal self- and cross-attention of the
hand-built translation example, each map beside what its heads do, and one cross head's
queries and keys in one picture."""

from __future__ import annotations

import numpy as np
import streamlit as st

from attention.figures.attention_maps import attention_grid
from attention.figures.block_translation import joint_query_key_figure
from attention.figures.tables import matrix_rows, top_weight_rows
from attention.geometry.head_spaces import head_layout
from attention.models import translation
from attention.models.translation.pronoun import choose_pronoun
from attention.teaching.markdown import literal
from attention.teaching.narration import translation as narration
from ui.charts import show_chart
from ui.pooled_maps import maps_to_draw
from ui.translation import run_translation
from view_state import url_params

EXAMPLES = {example.label: example for example in translation.EXAMPLES}
# Title characters across the cross-attention maps (grid.grid's `title_chars`), three
# fifths of the page beside the heads' list, in a 1024-px window: 25 keep apart there
# (tests/browser/test_browser_layout.py; 34 fit at 1280 px).
MAPS_COLUMN_TITLE_CHARS = 25
KIND_NAMES = {
    "encoder": "Encoder self-attention",
    "decoder": "Decoder causal self-attention",
    "cross": "Cross-attention",
}


def _use_example() -> None:
    example = EXAMPLES[st.session_state["block_example"]]
    st.session_state["block_source"] = example.english
    st.session_state["block_target"] = example.german


def _maps_beside_heads(
    kind: str,
    weights: np.ndarray,
    query_tokens: list[str],
    remark: str,
    key_tokens: list[str] | None = None,
    **grid_options: object,
) -> None:
    """One attention's maps (left) beside what its hand-built heads do and the section's
    `remark` (right)."""
    titles, heads = translation.head_titles(kind), translation.HEADS[kind]
    keys = query_tokens if key_tokens is None else key_tokens
    if key_tokens is not None:
        grid_options["key_tokens"] = key_tokens
    maps, table = st.columns([3, 2], vertical_alignment="top")
    with maps:
        show_chart(
            attention_grid(
                **maps_to_draw(weights, query_tokens, **grid_options),
                titles=titles,
                columns=2,
                panel_px=260,
                title_chars=MAPS_COLUMN_TITLE_CHARS,
                colorbar_below=True,
            ),
            key=f"block_{kind}",
            name=f"{KIND_NAMES[kind]}: one map per head",
            summary=narration.maps_summary(
                titles, query_tokens, keys, weights, grid_options.get("allowed")
            ),
            table=matrix_rows(titles, query_tokens, keys, weights, grid_options.get("allowed")),
        )
    with table:
        st.markdown(narration.head_list(titles, heads))
        with st.expander("How these heads are built"):
            st.markdown(narration.head_construction(titles, heads))
        st.markdown(remark)


def _sentence_inputs() -> tuple[str, str]:
    """The example picker and the two sentences (bound to the URL), first example by
    default; the words the example knows in an expander."""
    st.selectbox("Example", list(EXAMPLES), key="block_example", on_change=_use_example)
    first = translation.EXAMPLES[0]
    for key, default in (("block_source", first.english), ("block_target", first.german)):
        if key not in st.session_state and key not in st.query_params:
            st.session_state[key] = default
    left, right = st.columns(2)
    source = left.text_input(
        "English (source)", key="block_source", max_chars=400, bind="query-params"
    )
    target = right.text_input(
        "German (target)", key="block_target", max_chars=400, bind="query-params"
    )
    with st.expander("The words this example knows"):
        for language, words in translation.VOCABULARY.items():
            for line in narration.vocabulary_lines(language, words):
                st.markdown(line)
        st.caption(
            "Words are matched ignoring case and punctuation, except Sie (polite you) and sie "
            "(she/they/it). Any other word stops the example with a message: nothing is "
            "guessed. The lists live in assets/translation/."
        )
    return source, target


@st.fragment
def three_attentions() -> None:
    """§3: encoder self-, decoder causal self- and cross-attention, hand-built."""
    st.header("3 · Three attentions in a translation", anchor="three-attentions")
    st.markdown(
        "English *you* can be German *du* (one person, familiar), *ihr* (several, familiar) "
        "or *Sie* (polite, one or several). *you* alone does not say which; words of "
        "address can (*you guys*, *you two*, *sir*, *my friend*). **These heads were built "
        "by hand, not trained**: each word is a vector of named features (meaning, part of "
        "speech, number, formality, gender, person, position), and each head's score is a "
        "sum of a few readable terms comparing a feature of the query word with one of the "
        "key word. So each map shows exactly what its head was built for; the list beside "
        "it says what the head does to every word."
    )
    source, target = _sentence_inputs()
    try:
        example = run_translation(source, target)
    except ValueError as error:
        st.error(literal(str(error)))
        return

    source_tokens, target_tokens = list(example.source_tokens), list(example.target_tokens)
    st.subheader("Encoder self-attention: every English word sees every other")
    _maps_beside_heads(
        "encoder",
        example.encoder_weights,
        source_tokens,
        narration.you_remark(narration.you_readings(example)),
        self_attention=True,
    )

    st.subheader("Decoder causal self-attention: only the words already written")
    st.markdown(
        "The decoder writes German one word at a time, starting from a start token `<s>`. "
        "When it writes word *i*, the words after it do not exist yet — so in training, "
        "where the whole sentence is fed at once, the mask blocks them (grey cells)."
    )
    _maps_beside_heads(
        "decoder",
        example.decoder_weights,
        target_tokens,
        narration.formality_remark(*example.strongest_key("decoder", "formality")),
        allowed=example.decoder.sublayers[0].detail.mask,
        self_attention=True,
    )

    st.subheader("Cross-attention: German words ask the English sentence")
    _maps_beside_heads(
        "cross",
        example.cross_weights,
        target_tokens,
        narration.pronoun_decision(choose_pronoun(example), example.target_tokens),
        key_tokens=source_tokens,
        query_side="German: query",
        key_side="English: key",
    )
    _one_cross_head(example, target_tokens, source_tokens)


def _one_cross_head(
    example: translation.TranslationTrace, target_tokens: list[str], source_tokens: list[str]
) -> None:
    """One chosen cross-attention head's queries and keys in one 2-D picture."""
    titles = translation.head_titles("cross")
    picture, controls = st.columns([3, 2], vertical_alignment="center")
    with controls:
        head = st.selectbox(
            "Cross-attention head in one picture",
            **url_params.bounds("block_cross_head"),
            key="block_cross_head",
            bind="query-params",
        )
        st.markdown(narration.cross_picture_caption())
    with picture:
        show_chart(
            joint_query_key_figure(
                head_layout(example.cross, head),
                target_tokens,
                source_tokens,
                example.cross_weights[head],
                head,
                titles[head],
            ),
            key="block_joint",
            name=f"{titles[head]}: queries and keys in one picture",
            summary=narration.joint_summary(
                titles[head], target_tokens, source_tokens, example.cross_weights[head]
            ),
            table=top_weight_rows(target_tokens, source_tokens, example.cross_weights[head]),
        )
