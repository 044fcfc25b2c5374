"""sacreBLEU's module path ``sacrebleu.tokenizers.tokenizer_13a`` (thin; see :mod:`.tok_13a`)."""

from .tok_13a import Tokenizer13a

__all__ = ["Tokenizer13a"]
