"""What `ja-mecab` and `ko-mecab` share: morphological analysis by MeCab.

The same packages and dictionaries as sacreBLEU (extras ``truebleu[ja]`` and
``truebleu[ko]``), so the tokens, and the MeCab version in the signature, are
the same. The dictionary size is checked: another dictionary would silently
change every score.
"""

from __future__ import annotations

from functools import lru_cache

from .tokenizer_base import Tokenizer


class MecabTokenizer(Tokenizer):
    _module: str
    _dic_module: str
    _dic_size: int
    _dic_label: str
    _extra: str

    def __init__(self) -> None:
        import importlib

        try:
            mecab = importlib.import_module(self._module)
            dic = importlib.import_module(self._dic_module)
        except ImportError as exc:
            raise ImportError(
                f"the {self.name!r} tokenizer needs MeCab and its dictionary: "
                f"pip install 'truebleu[{self._extra}]'"
            ) from exc
        self._tagger = mecab.Tagger(dic.MECAB_ARGS + " -Owakati")
        info = self._tagger.dictionary_info()
        if info.size != self._dic_size or info.next is not None:
            raise RuntimeError(
                f"the {self.name!r} tokenizer needs the {self._dic_module} dictionary "
                f"alone ({self._dic_size} entries); found {info.size} entries"
                + (" and a user dictionary" if info.next is not None else "")
            )

    def __reduce__(self) -> tuple:
        """Pickled by class: the tagger is made again where the tokenizer is unpickled."""
        return (type(self), ())

    def signature(self) -> str:
        return f"{self.name}-{self._tagger.version()}-{self._dic_label}"

    @lru_cache(maxsize=2**16)
    def __call__(self, line: str) -> str:
        return self._tagger.parse(line.strip()).strip()
