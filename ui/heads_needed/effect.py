"""What the switched-off heads change: the sentence embedding's cosine to the one with every
head on, the paraphrase task's accuracy, and the switches' picture."""

from __future__ import annotations

import numpy as np
import streamlit as st

from attention.analysis.head_masks import format_heads_off
from attention.figures.heads_needed import switches_figure
from attention.figures.tables import head_score_rows
from attention.teaching.narration import heads_needed as narration
from ui.charts import show_chart
from ui.heads_needed import switches as hn
from ui.jobs import run_with_bar


def effect_section(text: str, tokens: list[str], mask: np.ndarray) -> None:
    """The numbers beside the switches' picture, for the heads now on."""
    total = mask.size
    heads_off = format_heads_off(mask)
    on_count = int(mask.sum())
    numbers, picture = st.columns([2, 3])
    numbers.markdown(narration.tokens_line(tokens))
    numbers.metric("Heads on", f"{on_count} of {total}")
    cosine = hn.sentence_cosine(text, heads_off)
    numbers.metric(
        "Cosine to the embedding with every head",
        f"{cosine:.4f}",
        help="The sentence embedding (mean of the last layer's token vectors, length 1) with "
        "these heads off against the one with every head on: 1 means nothing moved.",
    )
    task = hn.paraphrase_task()
    with numbers:
        full = run_with_bar("Paraphrase accuracy with every head…", hn.task_accuracy, "")
        accuracy = run_with_bar(
            "Paraphrase accuracy with these heads…", hn.task_accuracy, heads_off
        )
    numbers.metric(
        f"Paraphrase accuracy ({len(task.triplets)} triplets)",
        f"{accuracy:.1%}",
        delta=narration.accuracy_change(accuracy, full),
        help="Share of triplets whose anchor sentence is nearer its paraphrase than its "
        "look-alike distractor (cosine of sentence embeddings).",
    )
    show_chart(
        switches_figure(mask),
        key="heads_switches",
        container=picture,
        name="Which heads are on, layer by layer",
        summary=narration.switches_summary(mask),
        table=head_score_rows(mask, "on (1) or off (0)"),
    )
