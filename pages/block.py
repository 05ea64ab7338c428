"""The block around attention: what W_O, the residual stream and the feed-forward layer
do to each token; why the residual matters (rank collapse); and self, causal and cross
attention in a small hand-built translation example."""

import numpy as np
import streamlit as st
from streamlit.delta_generator import DeltaGenerator

from attention.blocks import FEED_FORWARD
from attention.figures.block import (
    collapse_pca_figure,
    concat_figure,
    hidden_figure,
    joint_query_key_figure,
    layer_ratio_figure,
    rank_collapse_figure,
    stream_update_figure,
)
from attention.figures.heatmap import attention_grid
from attention.figures.real_model import layer_path_figure
from attention.pretrained import ModelError
from attention.projection import joint_query_key_layout
from attention.rank_collapse import MAX_DEPTH
from attention.translation import ENGLISH, GERMAN, HEADS, VOCABULARY
from ui import block_data
from ui.charts import show_chart
from ui.data import ScenarioRun
from ui.markdown import literal
from ui.real_model import run_real
from ui.scenario import DEFAULT_TEXT, Scenario
from ui.sidebar import scenario_sidebar

# Radio label (also the URL value) → (the library's norm, a caption).
NORMS = {
    "post-LN": ("post", "2017 paper, BERT"),
    "pre-LN": ("pre", "GPT-2 and most models since"),
    "no LN": ("none", "Dong et al.'s pure attention"),
}
ACTIVATIONS = {"GELU": "gelu", "ReLU": "relu"}
EXAMPLES = {
    "you are tired → du bist müde (one friend)": ("you are tired", "du bist müde"),
    "you are tired → ihr seid müde (several friends)": ("you are tired", "ihr seid müde"),
    "you are tired → Sie sind müde (polite)": ("you are tired", "Sie sind müde"),
    "the dog is not tired → der Hund ist nicht müde": (
        "the dog is not tired",
        "der Hund ist nicht müde",
    ),
    "she is very hungry → sie ist sehr hungrig": ("she is very hungry", "sie ist sehr hungrig"),
}


def _use_example() -> None:
    source, target = EXAMPLES[st.session_state["block_example"]]
    st.session_state["block_source"] = source
    st.session_state["block_target"] = target


def _titles(kind: str) -> list[str]:
    return [f"{h + 1}. {name}" for h, (name, _) in enumerate(HEADS[kind])]


def _head_list(kind: str) -> None:
    """What each head was built to do (fixed texts, no user input)."""
    st.markdown(
        "\n".join(
            f"- **{title}**: {what}"
            for title, (_, what) in zip(_titles(kind), HEADS[kind], strict=True)
        )
    )


def _maps_beside_heads(
    kind: str, weights: np.ndarray, query_tokens: list[str], **grid_options: object
) -> DeltaGenerator:
    """One attention's maps (left) beside what its hand-built heads do (right); returns
    the right-hand column for the section's own remark."""
    maps, table = st.columns([3, 2], vertical_alignment="center")
    with maps:
        show_chart(
            attention_grid(
                weights, query_tokens, titles=_titles(kind), columns=2, panel_px=260, **grid_options
            ),
            key=f"block_{kind}",
        )
    with table:
        _head_list(kind)
    return table


@st.fragment
def what_the_block_does(scenario: Scenario, run: ScenarioRun) -> None:
    """§1: the scenario's heads in one block: concatenation, W_O, norms, FFN."""
    tokens = run.tokens
    st.header("1 · What one block does to each token")
    left, right = st.columns(2)
    norm_label = left.radio(
        "Where the LayerNorm sits",
        ["post-LN", "pre-LN"],
        captions=[NORMS[n][1] for n in ("post-LN", "pre-LN")],
        key="block_norm",
        bind="query-params",
        horizontal=True,
    )
    norm = NORMS[norm_label][0]
    activation = ACTIVATIONS[
        right.radio(
            "Feed-forward activation",
            list(ACTIVATIONS),
            key="block_act",
            bind="query-params",
            horizontal=True,
        )
    ]
    if norm == "post":
        st.latex(
            r"x \leftarrow \mathrm{LN}\big(x + \mathrm{MultiHead}(x)\big), \qquad "
            r"x \leftarrow \mathrm{LN}\big(x + \mathrm{FFN}(x)\big)"
        )
    else:
        st.latex(
            r"x \leftarrow x + \mathrm{MultiHead}\big(\mathrm{LN}(x)\big), \qquad "
            r"x \leftarrow x + \mathrm{FFN}\big(\mathrm{LN}(x)\big)"
        )
    st.latex(rf"\mathrm{{FFN}}(x) = \mathrm{{{activation.upper()}}}(x W_1 + b_1)\, W_2 + b_2")

    trace = block_data.block_trace(scenario, norm, activation)
    attention_step = trace.sublayers[0]
    heads = attention_step.detail
    st.subheader("The heads, concatenated, feed $W_O$")
    st.markdown(
        f"Each token's **{run.mha.n_heads}** head outputs of **{run.mha.d_head}** numbers are "
        "laid end to end (one colour per head); $W_O$ mixes them into one update of "
        f"**{run.mha.d_model}** numbers, the width of the stream it is added to."
    )
    show_chart(
        concat_figure(tokens, heads.concat, attention_step.update, run.mha.n_heads),
        key="block_concat",
    )

    norms, hidden = st.columns(2)
    with norms:
        st.subheader("How big a nudge does each sublayer give?")
        ratios = ", ".join(
            f"**{step.name}** {np.median(step.update_ratios):.2f}" for step in trace.sublayers
        )
        st.markdown(
            "Light bars: the length of each token's vector as it enters a sublayer. Dark "
            f"bars: the length of what the sublayer adds. Median ‖update‖ / ‖stream‖: {ratios}. "
            "Below 1, the token keeps most of what it was and the sublayer nudges it."
        )
        show_chart(
            stream_update_figure(
                tokens,
                [step.name for step in trace.sublayers],
                np.array([step.stream_norms for step in trace.sublayers]),
                np.array([step.update_norms for step in trace.sublayers]),
            ),
            key="block_norms",
        )
    with hidden:
        st.subheader("Inside the feed-forward network")
        st.markdown(
            "Every token goes through the same two matrices on its own: no token sees another "
            "here. The hidden layer is 4 × wider than the stream; each column is one hidden unit."
        )
        show_chart(
            hidden_figure(tokens, trace.sublayer(FEED_FORWARD).detail.hidden, activation),
            key="block_hidden",
        )


def in_a_trained_model(text: str) -> None:
    """§1 measured in MiniLM: the nudges layer by layer and the tokens' path."""
    st.subheader("The same, measured in a trained model")
    try:
        real = run_real(text).trace
    except ModelError as error:
        st.info(f"MiniLM is not available here, so this part is left out. {error}")
        return
    medians = np.median(real.update_ratios, axis=-1)
    st.markdown(
        f"MiniLM on your sentence ({len(real.tokens)} WordPiece tokens), 6 post-LN layers. "
        f"Attention's median nudge ranges from {medians[:, 0].min():.2f} to "
        f"{medians[:, 0].max():.2f} of the stream, the feed-forward's from "
        f"{medians[:, 1].min():.2f} to {medians[:, 1].max():.2f}: every layer adds a "
        "fraction of what is already there, and the tokens move a step at a time."
    )
    show_chart(layer_ratio_figure(real.update_ratios), key="block_real_ratios")
    st.markdown("Each token's path through the layers, all seven hidden states in one PCA:")
    show_chart(layer_path_figure(real.hidden_states, real.tokens), key="block_real_paths")


@st.fragment
def why_the_residual_matters(scenario: Scenario, run: ScenarioRun) -> None:
    """§2: 24 stacked layers with and without the residual; PCA at one depth."""
    tokens = run.tokens
    st.header("2 · Why the residual stream matters")
    st.markdown(
        "Every attention output is a weighted **average** of value vectors, so stacking "
        "attention pulls the tokens together. Here the sentence goes through 24 random "
        "layers (same weights in all four runs), and we measure how far the token matrix "
        "$X$ ($n$ tokens × $d$) is from having every token equal:"
    )
    st.latex(
        r"\text{distance from rank 1} = \frac{\lVert X - \mathbf{1}\bar{x}^{\top}\rVert_F}"
        r"{\lVert X\rVert_F}, \qquad \bar{x} = \text{mean token}"
    )
    left, right = st.columns([3, 2])
    stack_order = ["pre-LN", "post-LN", "no LN"]
    stack_label = left.radio(
        "LayerNorm in the stack",
        stack_order,
        captions=[NORMS[n][1] for n in stack_order],
        key="block_stack_norm",
        bind="query-params",
        horizontal=True,
    )
    stack_norm = NORMS[stack_label][0]
    depth = right.slider(
        "Depth for the picture below", 0, MAX_DEPTH, 6, key="block_depth", bind="query-params"
    )
    collapse = block_data.rank_collapse(scenario, stack_norm)
    for column, label, distances in zip(
        st.columns(len(collapse.labels)), collapse.labels, collapse.distances, strict=True
    ):
        column.metric(
            label, f"{distances[depth]:.1e}", help=f"distance from rank 1 at depth {depth}"
        )
    curves, pictures = st.columns(2)
    with curves:
        show_chart(
            rank_collapse_figure(
                list(
                    zip(
                        collapse.labels,
                        collapse.residual,
                        collapse.feed_forward,
                        collapse.distances,
                        strict=True,
                    )
                ),
                depth,
            ),
            key="block_collapse",
        )
        st.markdown(
            "Without the residual the distance falls *doubly* exponentially (Dong et al., "
            "2021): its logarithm roughly triples each layer, until float64 can no longer tell "
            "the tokens apart. With it, each layer only adds to the stream and the tokens "
            f"keep their differences: {stack_label}, depth {MAX_DEPTH}, still "
            f"**{collapse.distance(True, False, MAX_DEPTH):.1e}**. Without pre-LN it drifts "
            "down slowly, because every layer adds a nearly shared vector to all tokens."
        )
    with pictures:
        show_chart(
            collapse_pca_figure(
                tokens,
                collapse.pictures(depth),
                depth,
            ),
            key="block_collapse_pca",
        )
        st.caption(
            "PCA of the tokens at the chosen depth, in units of their average length, on the "
            "same axes in all four panels. Dong et al. use an ℓ1/ℓ∞ norm without dividing by "
            "‖X‖; the ratio here is scale-free, because the residual stream grows with depth."
        )


@st.fragment
def three_attentions() -> None:
    """§3: encoder self-, decoder causal self- and cross-attention, hand-built."""
    st.header("3 · Three attentions in a translation")
    st.markdown(
        "English *you* can be German *du* (one friend), *ihr* (several) or *Sie* (polite): "
        "the source does not say which. **These heads were built by hand, not trained**: each "
        "word is a vector of named features (meaning, part of speech, number, formality, "
        "gender, position), and each head's $W_Q$, $W_K$ compare one feature of the query "
        "word with one of the key word. So each map shows exactly what its head was built for."
    )
    st.selectbox("Example", list(EXAMPLES), key="block_example", on_change=_use_example)
    first_source, first_target = next(iter(EXAMPLES.values()))
    for key, default in (("block_source", first_source), ("block_target", first_target)):
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
        for language in (ENGLISH, GERMAN):
            st.markdown(f"**{language}:** " + ", ".join(VOCABULARY[language]))
        st.caption(
            "Words are matched ignoring case and punctuation, except Sie (polite you) and sie "
            "(she/they). Any other word stops the example with a message: nothing is guessed."
        )

    try:
        example = block_data.translation(source, target)
    except ValueError as error:
        st.error(literal(str(error)))
        return

    source_tokens, target_tokens = list(example.source_tokens), list(example.target_tokens)
    st.subheader("Encoder self-attention: every English word sees every other")
    _maps_beside_heads("encoder", example.encoder_weights, source_tokens)

    st.subheader("Decoder causal self-attention: only the words already written")
    st.markdown(
        "The decoder writes German one word at a time, starting from a start token `<s>`. "
        "When it writes word *i*, the words after it do not exist yet — so in training, "
        "where the whole sentence is fed at once, the mask blocks them (grey cells)."
    )
    table = _maps_beside_heads(
        "decoder",
        example.decoder_weights,
        target_tokens,
        allowed=example.decoder.sublayers[0].detail.mask,
    )
    with table:
        word, weight = example.strongest_key("decoder", "formality")
        st.markdown(
            f"Here the **formality** head at the last word puts **{weight:.0%}** of its weight "
            f"on **{literal(word)}**. Once du, ihr or Sie is written, every later word finds "
            "it; with none of them, the head spreads evenly."
        )

    st.subheader("Cross-attention: German words ask the English sentence")
    table = _maps_beside_heads(
        "cross",
        example.cross_weights,
        target_tokens,
        key_tokens=source_tokens,
        query_side="German: query",
        key_side="English: key",
    )
    with table:
        word, weight = example.strongest_key("cross", "number & formality", query=0)
        st.markdown(
            "Here the **number & formality** head at `<s>`, about to choose the first word, "
            f"gives at most **{weight:.0%}** to any English word (“{literal(word)}”). Evenly "
            "spread means no English word is marked for number or formality, as with *you*: "
            "the source does not settle du, ihr or Sie."
        )

    cross = example.decoder.sublayers[1].detail
    picture, controls = st.columns([3, 2], vertical_alignment="center")
    with controls:
        head = st.selectbox(
            "Cross-attention head in one picture",
            range(len(HEADS["cross"])),
            format_func=lambda h: _titles("cross")[h],
            key="block_cross_head",
            bind="query-params",
        )
        st.markdown(
            "Queries (●) come from the decoder, keys (◇) from the encoder's output. Keys are "
            "shifted to the queries' centre and both scaled to equal size before the 2-D "
            "PCA — neither changes any weight. **ρ** is the rank correlation between the "
            "true score and the 2-D distance (−1: nearer always means more attention)."
        )
    with picture:
        show_chart(
            joint_query_key_figure(
                joint_query_key_layout(cross.q[head], cross.k[head]),
                target_tokens,
                source_tokens,
                example.cross_weights[head],
                head,
                _titles("cross")[head],
            ),
            key="block_joint",
        )


scenario, run = scenario_sidebar()
st.title("The block around attention")
st.markdown(
    "Attention never works alone. Its heads' outputs are glued together and mixed by "
    "$W_O$, **added** to a residual stream that carries each token's vector from layer to "
    "layer, and then a feed-forward network works on every token separately."
)
what_the_block_does(scenario, run)
in_a_trained_model(scenario.text if scenario.text.strip() else DEFAULT_TEXT)
why_the_residual_matters(scenario, run)
three_attentions()
