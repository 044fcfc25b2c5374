"""What `ja-mecab` and `ko-mecab` share: morphological analysis by MeCab.

The same packages and dictionaries as sacreBLEU (extras ``truebleu[ja]`` and
``truebleu[ko]``), so the tokens, and the MeCab version in the signature, are
the same. The dictionary size is checked: another dictionary would silently
change every score.
"""

from __future__ import annotations

import threading
from functools import lru_cache
from typing import Any

from .tokenizer_base import CACHED_LINES, Tokenizer

#: One MeCab tagger per MeCab module (its dictionary is fixed by the module), shared by every
#: tokenizer of that setting: a tagger holds its dictionary (tens of MB), so one per
#: ``BLEU(tokenize="ja-mecab")`` object grew a process by gigabytes.
_TAGGERS: dict[str, tuple[Any, threading.Lock]] = {}
_TAGGERS_LOCK = threading.Lock()


@lru_cache(maxsize=CACHED_LINES)
def parse(module: str, line: str) -> str:
    """``line`` segmented by the shared tagger of ``module`` (made by a MecabTokenizer first)."""
    tagger, lock = _TAGGERS[module]
    with lock:  # a MeCab tagger is not safe to share between threads without one
        return str(tagger.parse(line.strip())).strip()


class MecabTokenizer(Tokenizer):
    _module: str
    _dic_module: str
    _dic_size: int
    _dic_label: str
    _extra: str

    def __init__(self) -> None:
        with _TAGGERS_LOCK:
            if self._module not in _TAGGERS:
                _TAGGERS[self._module] = (self._new_tagger(), threading.Lock())
        self._tagger = _TAGGERS[self._module][0]

    def _new_tagger(self) -> Any:
        import importlib

        try:
            mecab = importlib.import_module(self._module)
            dic = importlib.import_module(self._dic_module)
        except ImportError as exc:
            raise ImportError(
                f"the {self.name!r} tokenizer needs MeCab and its dictionary: "
                f"pip install 'truebleu[{self._extra}]'"
            ) from exc
        tagger = mecab.Tagger(dic.MECAB_ARGS + " -Owakati")
        info = tagger.dictionary_info()
        if info.size != self._dic_size or info.next is not None:
            raise RuntimeError(
                f"the {self.name!r} tokenizer needs the {self._dic_module} dictionary "
                f"alone ({self._dic_size} entries); found {info.size} entries"
                + (" and a user dictionary" if info.next is not None else "")
            )
        return tagger

    def __reduce__(self) -> tuple:
        """Pickled by class: the tagger is made again where the tokenizer is unpickled."""
        return (type(self), ())

    def signature(self) -> str:
        return f"{self.name}-{self._tagger.version()}-{self._dic_label}"

    def __call__(self, line: str) -> str:
        return parse(self._module, line)
