"""Translation edit rate (Snover et al., 2006), sacreBLEU's ``sacrebleu.metrics.ter`` path.

:mod:`.spec` is tercom's algorithm in plain Python; :mod:`.metric` the
:class:`TER` object.
"""

from __future__ import annotations

from .metric import TER, TERScore, TERSignature

__all__ = ["TER", "TERScore", "TERSignature"]
