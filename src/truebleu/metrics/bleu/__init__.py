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
from .score import BLEUScore

TYPE_CHECKING = False  # not typing.TYPE_CHECKING: importing typing costs about 16 M instructions
if TYPE_CHECKING:
    from typing import Any

    from .rows import BLEUBatchScorer as BLEUBatchScorer

__all__ = ["BLEU", "BLEUBatchScorer", "BLEUScore", "BLEUSignature", "MAX_NGRAM_ORDER"]


def __getattr__(name: str) -> Any:
    """``BLEUBatchScorer`` on first use: it brings the resampling helpers, which scoring
    text (the command line) does not need."""
    if name == "BLEUBatchScorer":
        from .rows import BLEUBatchScorer

        return BLEUBatchScorer
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
