"""What every tokenizer provides (sacreBLEU's module path ``sacrebleu.tokenizers.tokenizer_base``).

``BaseTokenizer`` is sacreBLEU's name for :class:`Tokenizer`, so a class derived from it
(defining ``signature()`` and ``__call__``) works as with sacreBLEU.
"""

from __future__ import annotations

#: How many tokenized lines each tokenizing function keeps (sacreBLEU caches as many).
#: The caches are module functions keyed by the line and the settings, never methods keyed
#: by the tokenizer: a cache keyed by ``self`` keeps every tokenizer alive (with its MeCab
#: tagger or SentencePiece model: sacreBLEU grows about 3 MB per ``BLEU(tokenize="ja-mecab")``).
CACHED_LINES = 2**16


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
