"""Scores computed elsewhere (COMET, MetricX, human DA or MQM) as a metric of the family.

:class:`~.metric.ExternalScores` holds one number per segment and system, read from a
file (:mod:`truebleu.io.scores`) or given as lists; its rows are ``[score, 1]``, its
score their mean (or the official system score given), its direction what the user
says. It is not in :data:`truebleu.metrics.METRICS`: that registry names the metrics
that score text (``-m``); external scores come with ``--scores NAME=FILE``.
"""

from __future__ import annotations

from importlib import import_module

TYPE_CHECKING = False  # not typing.TYPE_CHECKING: as the other metric packages
if TYPE_CHECKING:  # the lazy names for type checkers, re-exported (`name as name`)
    from .metric import ExternalScore as ExternalScore
    from .metric import ExternalScores as ExternalScores
    from .metric import ExternalSignature as ExternalSignature

_LAZY = {"ExternalScores": ".metric", "ExternalScore": ".metric", "ExternalSignature": ".metric"}

__all__ = list(_LAZY)


def __getattr__(name: str) -> object:
    if name in _LAZY:
        value = getattr(import_module(_LAZY[name], __name__), name)
        globals()[name] = value
        return value
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_LAZY))
