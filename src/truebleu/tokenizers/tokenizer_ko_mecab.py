"""sacreBLEU's module path ``sacrebleu.tokenizers.tokenizer_ko_mecab`` (thin; :mod:`.tok_mecab`)."""

from .tok_mecab import TokenizerKoMecab

__all__ = ["TokenizerKoMecab"]
