"""``sacrebleu.metrics.bleu`` for truebleu: a thin re-export of :mod:`truebleu.bleu`.

``BLEU.compute_bleu`` is sacreBLEU's static method (same signature), which is
:func:`truebleu.score.compute_bleu`.
"""

from __future__ import annotations

from ..bleu import BLEU
from ..score import MAX_NGRAM_ORDER, BLEUScore
from ..signature import Signature as BLEUSignature

__all__ = ["BLEU", "BLEUScore", "BLEUSignature", "MAX_NGRAM_ORDER"]
