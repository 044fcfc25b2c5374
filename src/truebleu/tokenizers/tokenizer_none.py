"""sacreBLEU's module path ``sacrebleu.tokenizers.tokenizer_none`` (thin; see :mod:`.tok_none`)."""

from .tok_none import TokenizerNone as NoneTokenizer

__all__ = ["NoneTokenizer"]
