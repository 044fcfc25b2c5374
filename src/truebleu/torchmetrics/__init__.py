"""torchmetrics drop-ins: BLEU, chrF and TER as ``torchmetrics.Metric`` classes, counted by truebleu's core.

Two families, one interface (``update(preds, target)``, ``compute``, ``reset``, ``forward``,
distributed sync):

* ``BLEUScore``, ``SacreBLEUScore``, ``CHRFScore``, ``TranslationEditRate``:
  torchmetrics 1.9's classes of the same name, with the same arguments and *the same
  numbers* (float32 fractions, torchmetrics' arithmetic and edge rules: the
  ``torchmetrics*`` dialects of :mod:`truebleu.dialects`), many times faster;
* ``BLEU``, ``CHRF``, ``TER``: sacreBLEU's numbers (0-100, float64) under sacreBLEU's
  option names, as :class:`truebleu.metrics.BLEU`, ``CHRF`` and ``TER`` take them.

The states are the metrics' additive statistics, summed across processes
(``dist_reduce_fx="sum"``): integer counts (int64), so a distributed run gives exactly the
one-process number. Each class's docstring says where a float state remains and why.

Importing this package loads nothing; the first class used imports torch and torchmetrics
(``pip install 'truebleu[torch]'``).
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .bleu import BLEUScore as BLEUScore
    from .bleu import SacreBLEUScore as SacreBLEUScore
    from .chrf import CHRFScore as CHRFScore
    from .sacrebleu import BLEU as BLEU
    from .sacrebleu import CHRF as CHRF
    from .sacrebleu import TER as TER
    from .ter import TranslationEditRate as TranslationEditRate

_LAZY = {
    "BLEUScore": ".bleu",
    "SacreBLEUScore": ".bleu",
    "CHRFScore": ".chrf",
    "TranslationEditRate": ".ter",
    "BLEU": ".sacrebleu",
    "CHRF": ".sacrebleu",
    "TER": ".sacrebleu",
}

__all__ = sorted(_LAZY)


def __getattr__(name: str) -> Any:
    if name not in _LAZY:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(import_module(_LAZY[name], __name__), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_LAZY))
