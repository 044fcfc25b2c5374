"""TER's configuration: tercom's options, checked once, and the tokenizer they make."""

from __future__ import annotations

from ...core.config import MetricConfig
from ...core.settings import check_flag
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
        options = {"normalized": check_flag("normalized", normalized),
                   "no_punct": check_flag("no_punct", no_punct),
                   "asian_support": check_flag("asian_support", asian_support),
                   "case_sensitive": check_flag("case_sensitive", case_sensitive)}
        self._set(**options, tokenizer=TercomTokenizer(**options))
