"""TER's configuration: tercom's options, checked once, and the tokenizer they make."""

from __future__ import annotations

from ...core.config import MetricConfig
from ...tokenizers.tokenizer_ter import TercomTokenizer


class TERConfig(MetricConfig):
    """TER's options (tercom's normalisation), and the tokenizer they make.

    Frozen: setting or deleting a field raises ``dataclasses.FrozenInstanceError``.
    """

    __match_args__ = ("normalized", "no_punct", "asian_support", "case_sensitive")
    normalized: bool
    no_punct: bool
    asian_support: bool
    case_sensitive: bool
    tokenizer: TercomTokenizer

    def __init__(self, normalized: bool = False, no_punct: bool = False,
                 asian_support: bool = False, case_sensitive: bool = False) -> None:
        options = {"normalized": bool(normalized), "no_punct": bool(no_punct),
                   "asian_support": bool(asian_support), "case_sensitive": bool(case_sensitive)}
        self._set(**options, tokenizer=TercomTokenizer(**options))
