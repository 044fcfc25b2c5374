"""chrF and chrF++ (Popović 2015, 2017), sacreBLEU's ``sacrebleu.metrics.chrf`` path.

:mod:`.spec` is the specification in plain Python; :mod:`.metric` the
:class:`CHRF` object; :mod:`.batch` many sentence scores and matrices at once.
"""

from __future__ import annotations

from .metric import CHRF, CHRFScore, CHRFSignature

__all__ = ["CHRF", "CHRFScore", "CHRFSignature"]
