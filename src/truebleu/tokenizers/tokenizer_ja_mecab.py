"""sacreBLEU's module path ``sacrebleu.tokenizers.tokenizer_ja_mecab`` (thin; :mod:`.tok_mecab`)."""

from .tok_mecab import TokenizerJaMecab

__all__ = ["TokenizerJaMecab"]
