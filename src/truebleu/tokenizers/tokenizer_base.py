"""What every tokenizer provides (sacreBLEU's module path ``sacrebleu.tokenizers.tokenizer_base``).

``BaseTokenizer`` is sacreBLEU's name for :class:`Tokenizer`, so a class derived from it
(defining ``signature()`` and ``__call__``) works as with sacreBLEU.
"""

from __future__ import annotations


class Tokenizer:
    """A callable that turns one segment into a string of space-separated tokens.

    ``name`` is the registry name (``-tok`` value); ``signature()`` is what the
    reproducibility signature shows (it may carry a version, e.g. MeCab's).
    ``native_mode`` names the equivalent tokenizer of the compiled core, or is
    ``None`` when the core must be fed tokens produced in Python.
    """

    name: str = ""
    native_mode: str | None = None

    def signature(self) -> str:
        return self.name

    def __call__(self, line: str) -> str:  # pragma: no cover - abstract
        raise NotImplementedError


BaseTokenizer = Tokenizer  # sacreBLEU's name: every truebleu tokenizer is a BaseTokenizer
