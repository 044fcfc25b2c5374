"""sacreBLEU's module path ``sacrebleu.tokenizers.tokenizer_spm`` (thin; see :mod:`.tok_spm`).

The classes take no model argument, as sacreBLEU's; truebleu finds the model
in its caches and never downloads it (see :func:`truebleu.tokenizers.tok_spm.find_model`).
"""

from __future__ import annotations

from .tok_spm import SPM_MODELS as _MODELS
from .tok_spm import TokenizerSPM

__all__ = ["SPM_MODELS", "TokenizerSPM", "Flores101Tokenizer", "Flores200Tokenizer",
           "spBLEU1KTokenizer"]

# sacreBLEU's shape of the table: key -> {"url": ..., "signature": ...}
SPM_MODELS = {key: {"url": url, "signature": signature}
              for key, (signature, _filename, url) in _MODELS.items()}


class Flores200Tokenizer(TokenizerSPM):
    def __init__(self) -> None:
        super().__init__("flores200")


class Flores101Tokenizer(TokenizerSPM):
    def __init__(self) -> None:
        super().__init__("flores101")


class spBLEU1KTokenizer(TokenizerSPM):  # noqa: N801 - sacreBLEU's name
    def __init__(self) -> None:
        super().__init__("spBLEU-1K")
