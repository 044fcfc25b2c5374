"""sacreBLEU's module path ``sacrebleu.tokenizers.tokenizer_re``: mteval's punctuation rules.

A thin class over :func:`truebleu.tokenizers.regexp.split_punctuation`, the
rules that ``13a`` and ``zh`` apply after their own steps.
"""

from __future__ import annotations

from .base import Tokenizer
from .regexp import split_punctuation

__all__ = ["TokenizerRegexp"]


class TokenizerRegexp(Tokenizer):
    """The four punctuation rules of mteval-v13a, then single spaces (signature ``re``)."""

    name = "re"

    def __call__(self, line: str) -> str:
        return split_punctuation(line)
