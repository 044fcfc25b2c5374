"""sacreBLEU's module path ``sacrebleu.tokenizers.tokenizer_ter``: a thin re-export."""

from .tok_ter import TercomTokenizer

__all__ = ["TercomTokenizer"]
