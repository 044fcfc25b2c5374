"""`char`: every character is a token (whitespace disappears when splitting)."""

from __future__ import annotations

from .tokenizer_base import Tokenizer


class TokenizerChar(Tokenizer):
    name = "char"
    native_mode = "char"

    def __call__(self, line: str) -> str:
        return " ".join(line)
