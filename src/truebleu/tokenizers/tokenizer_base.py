"""sacreBLEU's module path ``sacrebleu.tokenizers.tokenizer_base``: a thin alias.

``BaseTokenizer`` is truebleu's :class:`truebleu.tokenizers.base.Tokenizer`, so
every truebleu tokenizer is a ``BaseTokenizer`` and a class derived from it
(defining ``signature()`` and ``__call__``) works as with sacreBLEU.
"""

from .base import Tokenizer as BaseTokenizer

__all__ = ["BaseTokenizer"]
