"""Translation edit rate (Snover et al., 2006), sacreBLEU's ``sacrebleu.metrics.ter`` path.

:mod:`.spec` is tercom's algorithm in plain Python; :mod:`.metric` the
:class:`TER` object; :mod:`.alignment` the edits a score counts (:class:`TERAlignment`).
"""

from __future__ import annotations

from importlib import import_module

TYPE_CHECKING = False  # not typing.TYPE_CHECKING: every command loads this package (its flags)
if TYPE_CHECKING:  # the lazy names for type checkers, re-exported (`name as name`)
    from .alignment import Edit as Edit
    from .alignment import Shift as Shift
    from .alignment import TERAlignment as TERAlignment
    from .metric import TER as TER
    from .metric import TERScore as TERScore
    from .metric import TERSignature as TERSignature

_LAZY = {"TER": ".metric", "TERScore": ".metric", "TERSignature": ".metric",
         "TERAlignment": ".alignment", "Shift": ".alignment", "Edit": ".alignment"}

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
