"""The block around attention: what W_O, the residual stream and the feed-forward layer
do to each token; why the residual matters (rank collapse); and self, causal and cross
attention in a small hand-built translation example."""

import numpy as np
import streamlit as st
from streamlit.delta_generator import DeltaGenerator

from attention.analysis.rank_collapse import FLOAT64_LEVEL, MAX_DEPTH, depth_reaching, log_growth
from attention.analysis.update_ratios import (
    SMALL_NUDGE,
    block_nudges,
    median_over_tokens,
    nudge_sizes,
)
from attention.core.blocks import FEED_FORWARD
from attention.figures.attention_maps import attention_grid
from attention.figures.block import (
    concat_figure,
    head_reads_figure,
    hidden_figure,
    layer_ratio_figure,
    stream_update_figure,
)
from attention.figures.block_rank_collapse import collapse_pca_figure, rank_collapse_figure
from attention.figures.block_translation import joint_query_key_figure
from attention.figures.real_model import layer_path_figure
from attention.geometry.head_spaces import head_layout
from attention.geometry.planes import hidden_state_paths
from attention.models import translation
from attention.models.pretrained import ModelError
from attention.models.translation.heads import WHO_IS_YOU, YOU_FROM_SOURCE
from attention.models.translation.pronoun import (
    SETTLED,
    YOU_PRONOUNS,
    PronounChoice,
    choose_pronoun,
)
from attention.teaching.wording import plural
from ui import block_data, data
from ui.charts import show_chart
from ui.data import ScenarioRun
from ui.markdown import literal
from ui.real_model import minilm_reads, pretrained_model, run_real
from ui.scenario import Scenario
from ui.sidebar import scenario_run, scenario_sidebar
from ui.translation import run_translation

# Radio label (also the URL value) → (the library's norm, a caption).
NORMS = {
    "post-LN": ("post", "2017 paper, BERT"),
    "pre-LN": ("pre", "GPT-2 and most models since"),
    "no LN": ("none", "Dong et al.'s pure attention"),
}
ACTIVATIONS = {"GELU": "gelu", "ReLU": "relu"}
EXAMPLES = {example.label: example for example in translation.EXAMPLES}
# Title characters across the cross-attention maps (grid.grid's `title_chars`), three
# fifths of the page beside the heads' list, in a 1024-px window: 25 keep apart there
# (tests/test_browser_layout.py; 34 fit at 1280 px).
MAPS_COLUMN_TITLE_CHARS = 25


def _use_example() -> None:
    example = EXAMPLES[st.session_state["block_example"]]
    st.session_state["block_source"] = example.english
    st.session_state["block_target"] = example.german


def _head_list(kind: str) -> None:
    """What each hand-built head does to every word; in an expander, its score terms and
    what its values carry (the records' fixed texts, shown literally)."""
    titles, heads = translation.head_titles(kind), translation.HEADS[kind]
    st.markdown(
        "\n".join(
            f"- **{literal(title)}**: {literal(head.does)}"
            for title, head in zip(titles, heads, strict=True)
        )
    )
    with st.expander("How these heads are built"):
        st.markdown(
            "\n".join(
                f"- **{literal(title)}** — score: {literal(head.built)}. Values carry: "
                f"{literal(head.carried)}."
                for title, head in zip(titles, heads, strict=True)
            )
        )


def _maps_beside_heads(
    kind: str, weights: np.ndarray, query_tokens: list[str], **grid_options: object
) -> DeltaGenerator:
    """One attention's maps (left) beside what its hand-built heads do (right); returns
    the right-hand column for the section's own remark."""
    maps, table = st.columns([3, 2], vertical_alignment="top")
    with maps:
        show_chart(
            attention_grid(
                weights,
                query_tokens,
                titles=translation.head_titles(kind),
                columns=2,
                panel_px=260,
                title_chars=MAPS_COLUMN_TITLE_CHARS,
                colorbar_below=True,
                **grid_options,
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
        f"Each token's **{run.mha.n_heads}** head {plural(run.mha.n_heads, 'output')} of "
        f"**{run.mha.d_head}** {plural(run.mha.d_head, 'number')} "
        f"{'is' if run.mha.n_heads == 1 else 'are'} laid end to end (one colour per head); "
        "$W_O$ mixes them into one update of "
        f"**{run.mha.d_model}** numbers, the width of the stream it is added to."
    )
    show_chart(
        concat_figure(tokens, heads.concat, attention_step.update, run.mha.n_heads),
        key="block_concat",
    )

    what_the_feed_forward_reads(scenario, norm, activation)

    norms, hidden = st.columns(2)
    nudges = block_nudges(trace)
    with norms:
        st.subheader("How big a nudge does each sublayer give?")
        ratios = ", ".join(
            f"**{name}** {median:.2f}"
            for name, median in zip(nudges.names, nudges.median_ratios, strict=True)
        )
        st.markdown(
            "Light bars: the length of each token's vector as it enters a sublayer. Dark "
            f"bars: the length of what the sublayer adds. Median ‖update‖ / ‖stream‖: {ratios}. "
            + size_sentence(nudges.median_ratios)
        )
        show_chart(
            stream_update_figure(
                tokens, nudges.names, nudges.stream_norms, nudges.update_norms, nudges.ratios
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


def what_the_feed_forward_reads(scenario: Scenario, norm: str, activation: str) -> None:
    """How each feed-forward unit reads every head's block, random beside trained."""
    st.subheader("The feed-forward layer reads every head's block")
    toy = block_data.block_reads(scenario, norm, activation)
    panels = [(f"these random weights ({toy.shares.shape[1]} heads)", toy.shares)]
    facts = [
        f"with these random weights its strongest head gives a median "
        f"**{toy.median_top_share:.0%}** (an even read: {toy.even_share:.0%}), and units "
        f"leaning on one head (over twice an even share) are {toy.leaning():.0%}"
    ]
    try:
        layers = pretrained_model().config.layers
    except ModelError:
        layers = 0
    if layers:
        layer = st.select_slider(
            "MiniLM layer to compare", range(1, layers + 1), value=1, key="block_reads_layer",
            bind="query-params",
        )  # fmt: skip
        real = minilm_reads(layer)
        panels.append(
            (f"MiniLM layer {layer}, trained ({real.shares.shape[1]} heads)", real.shares)
        )
        facts.append(
            f"in MiniLM's trained layer {layer}, **{real.median_top_share:.0%}** (even: "
            f"{real.even_share:.0%}), with **{real.leaning():.0%}** of its "
            f"{real.shares.shape[0]} units leaning on one head"
        )
    least = min(float(shares.min()) for _, shares in panels)
    st.markdown(
        "The feed-forward network is the same two-layer network applied to each token on "
        "its own. Through $W_O$ it sees which numbers of the concatenation came from which "
        "head: each column below is one hidden unit, and how much of its reading (the norm "
        "of its weights along $W_O$, the LayerNorm's gain and $W_1$) comes from each "
        "head's block. "
        + f"The smallest share any unit takes from any head is {least:.1%}; "
        + "; ".join(facts)
        + "."
    )
    show_chart(head_reads_figure(panels), key="block_reads")


def in_a_trained_model(text: str) -> None:
    """§1 measured in MiniLM: the nudges layer by layer and the tokens' path."""
    st.subheader("The same, measured in a trained model")
    try:
        real = run_real(text).trace
    except ModelError as error:
        st.info(f"MiniLM is not available here, so this part is left out. {error}")
        return
    medians = median_over_tokens(real.update_ratios)
    st.markdown(
        f"MiniLM on your sentence ({len(real.tokens)} WordPiece tokens), {len(medians)} "
        f"post-LN layers. Attention's median update ranges from {medians[:, 0].min():.2f} to "
        f"{medians[:, 0].max():.2f} of the stream, the feed-forward's from "
        f"{medians[:, 1].min():.2f} to {medians[:, 1].max():.2f}. " + size_sentence(medians)
    )
    show_chart(layer_ratio_figure(real.update_ratios), key="block_real_ratios")
    st.markdown(
        f"Each token's path through the layers, all {len(real.hidden_states)} hidden states in "
        "one PCA:"
    )
    paths = hidden_state_paths(real.hidden_states)
    show_chart(layer_path_figure(paths, real.tokens), key="block_real_paths")


def size_sentence(medians: np.ndarray) -> str:
    """What the median ratios say about the size of each update, chosen by the numbers."""
    sizes = nudge_sizes(medians)
    total = sum(sizes.values())
    if sizes["large"] == 0 and sizes["sizeable"] == 0:
        return (
            f"Every median update is under {SMALL_NUDGE:.0%} of the stream's length: each "
            "sublayer nudges the tokens, and they keep most of what they were."
        )
    if sizes["large"] == 0:
        return (
            "Every median update is shorter than the stream it is added to; updates of at "
            f"least {SMALL_NUDGE:.0%} of its length, sizeable rather than small nudges: "
            f"{sizes['sizeable']} of {total}."
        )
    return (
        "Median updates at least as long as the stream itself, where the sublayer rewrites "
        f"the token rather than nudging it: {sizes['large']} of {total}."
    )


def collapse_sentences(collapse: block_data.CollapseResult, stack_label: str) -> str:
    """What the four stacks measured, each claim chosen by its own numbers."""
    lone = collapse.distances[collapse.residual.index(False)]
    kept = collapse.distances[collapse.residual.index(True)]
    growth, floor = log_growth(lone), depth_reaching(lone)
    fall = f"falls to {lone[-1]:.1e} by depth {MAX_DEPTH}"
    if floor is not None:
        fall = (
            f"reaches float64's rounding (≤ {FLOAT64_LEVEL:.0e}: identical tokens) at depth {floor}"
        )
    pace = ""
    if growth is not None and growth > 1.5:
        pace = (
            f" — *doubly* exponentially (Dong et al., 2021): its logarithm grows about "
            f"×{growth:.1f} per layer"
        )
    first = f"Without the residual ({stack_label}) the distance {fall}{pace}."
    ratio = kept[-1] / max(lone[-1], np.finfo(float).tiny)
    second = (
        f" With it, each layer only adds to the stream: from {kept[0]:.2f} at depth 0 the "
        f"distance is {kept[-1]:.1e} at depth {MAX_DEPTH}, {ratio:.0e} times the run "
        "without it."
    )
    if kept[-1] < kept[0] / 10:
        second += f" It still drifts down, {kept[0] / kept[-1]:.0e} times over those layers."
    return first + second


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
    curves, remark = st.columns(2)
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
    remark.markdown(collapse_sentences(collapse, stack_label))
    show_chart(
        collapse_pca_figure(tokens, collapse.pictures(depth), depth), key="block_collapse_pca"
    )
    st.caption(
        "PCA of the tokens at the chosen depth, in units of their average length, on the "
        "same axes in all four panels. Dong et al. use an ℓ1/ℓ∞ norm without dividing by "
        "‖X‖; the ratio here is scale-free, because the residual stream grows with depth."
    )


def _you_remark(example: translation.TranslationTrace) -> str:
    """What the encoder's “who is “you”?” head did at each 2nd-person word, from its map."""
    name = WHO_IS_YOU.name
    yous = example.source_positions("2nd person")
    if not yous:
        return (
            f"This sentence has no 2nd-person word, so the **{literal(name)}** head has "
            "nothing to settle."
        )
    remarks = []
    for i in yous:
        word, weight = example.strongest_key("encoder", name, query=i)
        if word == example.source_tokens[i]:
            remarks.append(
                f"“{literal(word)}” (word {i + 1}) finds no word of address and keeps "
                f"**{weight:.0%}** of its weight on itself"
            )
        else:
            remarks.append(
                f"“{literal(example.source_tokens[i])}” (word {i + 1}) puts **{weight:.0%}** of "
                f"its weight on **{literal(word)}**"
            )
    return f"Here, in the **{literal(name)}** head: " + "; ".join(remarks) + "."


def _listing(words: tuple[str, ...], last: str) -> str:
    """'**a**', '**a** or **b**', '**a**, **b** and **c**' (with `last` = "or"/"and")."""
    quoted = [f"**{literal(w)}**" for w in words]
    return quoted[0] if len(quoted) == 1 else ", ".join(quoted[:-1]) + f" {last} " + quoted[-1]


def _decision(choice: PronounChoice, target_tokens: tuple[str, ...]) -> str:
    """The du / ihr / Sie choice in words, every part computed from the cross map."""
    name = literal(YOU_FROM_SOURCE.name)
    if not choice.has_you:
        return (
            f"At `<s>` the **{name}** head finds no English 2nd-person word: "
            f"{choice.weight_on_you:.0%} of its weight lands on one, so it spreads out and "
            "there is no du, ihr or Sie to choose."
        )
    brought = ", ".join(f"{feature} {value:.2f}" for feature, value in choice.delivered.items())
    settled = "; ".join(
        f"{what}: **{side}**" if side else f"{what}: not settled"
        for what, side in (("number", choice.number), ("formality", choice.formality))
    )
    text = (
        f"At `<s>`, before any German word is written, the **{name}** head puts "
        f"**{choice.weight_on_you:.0%}** of its weight on the English 2nd-person words and "
        f"brings back {brought}. A side counts as settled when it leads the other by more "
        f"than {SETTLED:g}: {settled}. "
    )
    if choice.pronoun:
        text += f"So the English sentence asks for **{literal(choice.pronoun)}**."
    else:
        text += (
            "So the English sentence does not settle it: it allows "
            f"{_listing(choice.candidates, 'and')}."
        )
    return text + " " + _german_remark(choice, target_tokens)


def _german_remark(choice: PronounChoice, target_tokens: tuple[str, ...]) -> str:
    """How the German typed compares with the choice."""
    you_words = {w.text for w in YOU_PRONOUNS}
    used = tuple(dict.fromkeys(t for t in target_tokens if t in you_words))
    if not used:
        return "Your German uses none of them."
    ruled_out = tuple(w for w in used if w not in choice.candidates)
    if ruled_out:
        return (
            f"Your German uses {_listing(ruled_out, 'and')}, which the English sentence rules out."
        )
    if choice.pronoun:
        return f"Your German uses {_listing(used, 'and')}, as the English sentence asks."
    fits = "is one of them" if len(used) == 1 else "are among them"
    return (
        f"Your German's {_listing(used, 'and')} {fits}: that choice came from outside the "
        "English sentence."
    )


@st.fragment
def three_attentions() -> None:
    """§3: encoder self-, decoder causal self- and cross-attention, hand-built."""
    st.header("3 · Three attentions in a translation")
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
            st.markdown(f"**{language}:** " + literal(", ".join(words)))
            address = [w.text for w in words.values() if "address" in w.grammar]
            st.markdown(f"*{language} words of address:* " + literal(", ".join(address)))
        st.caption(
            "Words are matched ignoring case and punctuation, except Sie (polite you) and sie "
            "(she/they/it). Any other word stops the example with a message: nothing is "
            "guessed. The lists live in assets/translation/."
        )

    try:
        example = run_translation(source, target)
    except ValueError as error:
        st.error(literal(str(error)))
        return

    source_tokens, target_tokens = list(example.source_tokens), list(example.target_tokens)
    st.subheader("Encoder self-attention: every English word sees every other")
    table = _maps_beside_heads(
        "encoder", example.encoder_weights, source_tokens, self_attention=True
    )
    with table:
        st.markdown(_you_remark(example))

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
        self_attention=True,
    )
    with table:
        word, weight = example.strongest_key("decoder", "formality")
        st.markdown(
            f"Here the **formality** head at the last word puts **{weight:.0%}** of its weight "
            f"on **{literal(word)}**."
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
        st.markdown(_decision(choose_pronoun(example), example.target_tokens))

    cross = example.cross
    picture, controls = st.columns([3, 2], vertical_alignment="center")
    with controls:
        head = st.selectbox(
            "Cross-attention head in one picture",
            range(len(translation.HEADS["cross"])),
            format_func=lambda h: translation.head_titles("cross")[h],
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
                head_layout(cross, head),
                target_tokens,
                source_tokens,
                example.cross_weights[head],
                head,
                translation.head_titles("cross")[head],
            ),
            key="block_joint",
        )


scenario = scenario_sidebar()
run = scenario_run(scenario)
st.title("The block around attention")
st.markdown(
    "Attention never works alone. Its heads' outputs are glued together and mixed by "
    "$W_O$, **added** to a residual stream that carries each token's vector from layer to "
    "layer, and then a feed-forward network works on every token separately."
)
what_the_block_does(scenario, run)
in_a_trained_model(data.shown_text(scenario.text))
why_the_residual_matters(scenario, run)
three_attentions()
