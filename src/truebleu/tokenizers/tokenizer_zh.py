"""sacreBLEU's module path ``sacrebleu.tokenizers.tokenizer_zh`` (thin; see :mod:`.tok_zh`)."""

from .tok_zh import TokenizerZh

__all__ = ["TokenizerZh"]
