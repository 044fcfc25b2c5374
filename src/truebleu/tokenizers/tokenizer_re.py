"""The punctuation rules of mteval-v13a, shared by the `13a` and `zh` tokenizers
(sacreBLEU's module path ``sacrebleu.tokenizers.tokenizer_re``).

The rules are applied in this order to the whole line, then runs of whitespace
collapse to one space (Python's ``str.split``):

1. the ASCII symbols ``{|}~ [\\]^_` space !"#$%& ()*+ :;<=>?@ /`` get a space on
   both sides (so ``'``, ``,``, ``-``, ``.``, digits and letters do not);
2. ``.`` and ``,`` not preceded by an ASCII digit are split from what precedes
   them and followed by a space;
3. ``.`` and ``,`` not followed by an ASCII digit are split from what follows;
4. ``-`` preceded by an ASCII digit is split off.

Rules 2-4 look at one neighbouring character, so a period at the very end of
the string is only split when the caller pads the line with spaces (``13a``
does, ``zh`` does not: a quirk of sacreBLEU kept for exactness).
"""

from __future__ import annotations

import re
from functools import lru_cache

from .tokenizer_base import CACHED_LINES, Tokenizer

_RULES = (
    (re.compile(r"([\{-\~\[-\` -\&\(-\+\:-\@\/])"), r" \1 "),
    (re.compile(r"([^0-9])([\.,])"), r"\1 \2 "),
    (re.compile(r"([\.,])([^0-9])"), r" \1 \2"),
    (re.compile(r"([0-9])(-)"), r"\1 \2 "),
)


@lru_cache(maxsize=CACHED_LINES)
def split_punctuation(line: str) -> str:
    """Apply the four rules above and normalise whitespace."""
    for pattern, replacement in _RULES:
        line = pattern.sub(replacement, line)
    return " ".join(line.split())


class TokenizerRegexp(Tokenizer):
    """The four punctuation rules of mteval-v13a, then single spaces (signature ``re``)."""

    name = "re"

    def __call__(self, line: str) -> str:
        return split_punctuation(line)
