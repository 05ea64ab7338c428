"""WordPiece tokenization exactly as the model sees it: the text's own tokens between
[CLS] and [SEP], no padding, cut at the model's position limit with a notice."""

from __future__ import annotations

from dataclasses import dataclass

from tokenizers import Tokenizer


@dataclass(frozen=True)
class Tokenized:
    """Token ids and strings the model reads, the character span of each token in the
    text (None for [CLS] and [SEP]), and whether (and why) the text was cut."""

    ids: list[int]
    tokens: list[str]
    spans: list[tuple[int, int] | None]
    truncated: bool
    notice: str | None


class WordPieceTokenizer:
    """Wraps a `tokenizers.Tokenizer` from tokenizer.json with its shipped padding and
    truncation (128 for all-MiniLM-L6-v2) switched off; cutting is done here instead."""

    def __init__(self, tokenizer_json: str, max_tokens: int) -> None:
        self._tokenizer = Tokenizer.from_str(tokenizer_json)
        self._tokenizer.no_padding()
        self._tokenizer.no_truncation()
        self.max_tokens = max_tokens

    def encode(self, text: str) -> Tokenized:
        """Tokenize `text` with the special tokens; longer than `max_tokens`: keep the
        first max_tokens - 1 tokens and the closing special token."""
        if not isinstance(text, str) or not text.strip():
            raise ValueError("text must contain at least one non-space character.")
        encoding = self._tokenizer.encode(text)
        ids, tokens = list(encoding.ids), list(encoding.tokens)
        spans = [
            None if special else span
            for span, special in zip(encoding.offsets, encoding.special_tokens_mask, strict=True)
        ]
        if not any(not special for special in encoding.special_tokens_mask):
            raise ValueError(
                "text has no characters the model can read (only control or unknown "
                "characters); type some words."
            )
        if len(ids) <= self.max_tokens:
            return Tokenized(ids, tokens, spans, False, None)
        keep = self.max_tokens - 1
        notice = (
            f"The text makes {len(ids)} tokens with [CLS] and [SEP]; the model reads at most "
            f"{self.max_tokens}, so only its first {keep - 1} word pieces are used (up to "
            f"“{tokens[keep - 1]}”)."
        )
        return Tokenized(
            ids[:keep] + ids[-1:],
            tokens[:keep] + tokens[-1:],
            spans[:keep] + spans[-1:],
            True,
            notice,
        )

    def pieces(self, word: str) -> tuple[list[int], list[str]]:
        """The WordPiece ids and pieces of one word, without special tokens."""
        encoding = self._tokenizer.encode(word, add_special_tokens=False)
        return list(encoding.ids), list(encoding.tokens)

    def token(self, token_id: int) -> str | None:
        """The vocabulary entry with id `token_id` ("cat", "##s", "[CLS]"), or None."""
        return self._tokenizer.id_to_token(int(token_id))

    def token_id(self, token: str) -> int | None:
        """The id of a vocabulary entry such as "[UNK]", or None when it is not in it."""
        return self._tokenizer.token_to_id(token)
