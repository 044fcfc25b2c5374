"""`13a`: the tokenizer of mteval-v13a.pl, sacreBLEU's default."""

from __future__ import annotations

from functools import lru_cache

from .tokenizer_base import CACHED_LINES, Tokenizer

# mteval-v13a unescapes exactly these four entities, in this order.
_ENTITIES = (("&quot;", '"'), ("&amp;", "&"), ("&lt;", "<"), ("&gt;", ">"))


@lru_cache(maxsize=CACHED_LINES)
def tokenize_13a(line: str) -> str:
    from .tokenizer_re import split_punctuation  # here: the compiled core needs no regex

    line = line.replace("<skipped>", "").replace("-\n", "").replace("\n", " ")
    if "&" in line:
        for entity, char in _ENTITIES:
            line = line.replace(entity, char)
    return split_punctuation(f" {line} ")


class Tokenizer13a(Tokenizer):
    name = "13a"
    native_mode = "13a"

    def __call__(self, line: str) -> str:
        return tokenize_13a(line)
