"""BLEU (Papineni et al., 2002), sacreBLEU's ``sacrebleu.metrics.bleu`` path.

One folder, one metric: :mod:`.spec` (the statistics in plain Python, the
specification), :mod:`.config` (the settings, checked once), :mod:`.score`
(statistics -> BLEU), :mod:`.metric` (the :class:`BLEU` object), the kernels
that compute the statistics, the batch functions and :mod:`.explain`.
"""

from __future__ import annotations

from ...core.signature import Signature as BLEUSignature
from .config import MAX_NGRAM_ORDER
from .metric import BLEU
from .rows import BLEUBatchScorer
from .score import BLEUScore

__all__ = ["BLEU", "BLEUBatchScorer", "BLEUScore", "BLEUSignature", "MAX_NGRAM_ORDER"]
