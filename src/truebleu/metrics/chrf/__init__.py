"""chrF and chrF++ (Popović 2015, 2017), sacreBLEU's ``sacrebleu.metrics.chrf`` path.

:mod:`.spec` is the specification in plain Python; :mod:`.metric` the
:class:`CHRF` object; :mod:`.batch` many sentence scores and matrices at once.
"""

from __future__ import annotations

from importlib import import_module

TYPE_CHECKING = False  # not typing.TYPE_CHECKING: every command loads this package (its flags)
if TYPE_CHECKING:  # the lazy names for type checkers, re-exported (`name as name`)
    from .metric import CHRF as CHRF
    from .metric import CHRFScore as CHRFScore
    from .metric import CHRFSignature as CHRFSignature

_LAZY = {"CHRF": ".metric", "CHRFScore": ".metric", "CHRFSignature": ".metric"}

__all__ = list(_LAZY)


def __getattr__(name: str) -> object:
    """The metric's classes, loaded on first use: the command line reads :mod:`.cli`
    (the flags) without loading the metric itself."""
    if name in _LAZY:
        value = getattr(import_module(_LAZY[name], __name__), name)
        globals()[name] = value
        return value
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_LAZY))
