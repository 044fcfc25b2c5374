"""The sacreBLEU-based modules' numbers: ``sacrebleu``, ``chrf`` and ``ter`` as dicts.

Each function takes what the hub module's ``_compute`` takes (``references`` per
prediction, its keyword arguments with its defaults) and returns its dict: the
same keys, value types and values. Each scores in one call of a truebleu metric,
which runs in the compiled core.
"""

from __future__ import annotations

from typing import Any, Optional

from ..metrics.bleu.metric import BLEU
from ..metrics.chrf.metric import CHRF
from ..metrics.ter.metric import TER
from .inputs import PerPrediction, equal_streams


def sacrebleu_scores(predictions: list[str], references: PerPrediction,
                     smooth_method: str = "exp", smooth_value: Optional[float] = None,
                     force: bool = False, lowercase: bool = False, tokenize: Optional[str] = None,
                     use_effective_order: bool = False) -> dict[str, Any]:
    """sacreBLEU's corpus BLEU; ``tokenize`` None (or empty) means sacreBLEU's default, 13a."""
    streams = equal_streams(references, "sacrebleu")
    metric = BLEU(lowercase=lowercase, force=force, tokenize=tokenize or "13a",
                  smooth_method=smooth_method, smooth_value=smooth_value,
                  effective_order=use_effective_order)
    score = metric.corpus_score(predictions, streams)
    return {"score": score.score, "counts": score.counts, "totals": score.totals,
            "precisions": score.precisions, "bp": score.bp, "sys_len": score.sys_len,
            "ref_len": score.ref_len}


def chrf_scores(predictions: list[str], references: PerPrediction,
                char_order: int = CHRF.CHAR_ORDER, word_order: int = CHRF.WORD_ORDER,
                beta: int = CHRF.BETA, lowercase: bool = False, whitespace: bool = False,
                eps_smoothing: bool = False) -> dict[str, Any]:
    """sacreBLEU's corpus chrF (chrF++ with ``word_order=2``)."""
    streams = equal_streams(references, "chrf")
    metric = CHRF(char_order, word_order, beta, lowercase, whitespace, eps_smoothing)
    score = metric.corpus_score(predictions, streams)
    return {"score": score.score, "char_order": score.char_order, "word_order": score.word_order,
            "beta": score.beta}


def ter_scores(predictions: list[str], references: PerPrediction, normalized: bool = False,
               ignore_punct: bool = False, support_zh_ja_chars: bool = False,
               case_sensitive: bool = False) -> dict[str, Any]:
    """sacreBLEU's corpus TER; the hub's argument names map to sacreBLEU's ``no_punct``
    (``ignore_punct``) and ``asian_support`` (``support_zh_ja_chars``)."""
    streams = equal_streams(references, "ter")
    metric = TER(normalized=normalized, no_punct=ignore_punct, asian_support=support_zh_ja_chars,
                 case_sensitive=case_sensitive)
    score = metric.corpus_score(predictions, streams)
    return {"score": score.score, "num_edits": score.num_edits, "ref_length": score.ref_length}
