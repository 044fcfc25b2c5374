"""`none`: no tokenization; tokens are what whitespace separates."""

from __future__ import annotations

from .tokenizer_base import Tokenizer


class TokenizerNone(Tokenizer):
    name = "none"
    native_mode = "none"

    def __call__(self, line: str) -> str:
        return line

NoneTokenizer = TokenizerNone  # sacreBLEU's name
