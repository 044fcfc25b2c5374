"""`intl`: the international tokenization of mteval-v14.pl.

Punctuation (Unicode category P) is split off unless it sits between digits on
the side being looked at, and every symbol (category S) is split off. As in
mteval-v14 (and sacreBLEU), a period after a number at the very end of a line
stays attached: the rules look at a following character and there is none.
Character classes come from the ``regex`` module's Unicode tables.
"""

from __future__ import annotations

from functools import lru_cache

import regex

from .tokenizer_base import CACHED_LINES, Tokenizer

_RULES = (
    (regex.compile(r"(\P{N})(\p{P})"), r"\1 \2 "),
    (regex.compile(r"(\p{P})(\P{N})"), r" \1 \2"),
    (regex.compile(r"(\p{S})"), r" \1 "),
)


@lru_cache(maxsize=CACHED_LINES)
def tokenize_intl(line: str) -> str:
    for pattern, replacement in _RULES:
        line = pattern.sub(replacement, line)
    return " ".join(line.split())


class TokenizerIntl(Tokenizer):
    name = "intl"
    native_mode = "intl"

    def __call__(self, line: str) -> str:
        return tokenize_intl(line)

TokenizerV14International = TokenizerIntl  # sacreBLEU's name
