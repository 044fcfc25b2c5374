"""sacreBLEU's module path ``sacrebleu.tokenizers.tokenizer_intl`` (thin; see :mod:`.tok_intl`)."""

from .tok_intl import TokenizerIntl as TokenizerV14International

__all__ = ["TokenizerV14International"]
