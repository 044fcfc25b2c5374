"""sacreBLEU's module path ``sacrebleu.tokenizers.tokenizer_char`` (thin; see :mod:`.tok_char`)."""

from .tok_char import TokenizerChar

__all__ = ["TokenizerChar"]
