"""NumPy, imported only when a statistical test actually runs.

NumPy is the optional extra ``truebleu[stats]``: scoring text never needs it; the
significance tests, the viewer and the vectorised scorers call :func:`numpy`.
"""

from __future__ import annotations

TYPE_CHECKING = False  # not typing.TYPE_CHECKING: importing typing costs milliseconds
if TYPE_CHECKING:
    from types import ModuleType

_NUMPY: ModuleType | None = None


def numpy() -> ModuleType:
    """The ``numpy`` module, or an ImportError that names the extra to install."""
    global _NUMPY
    if _NUMPY is None:
        try:
            import numpy as np
        except ImportError as exc:  # pragma: no cover - depends on the environment
            raise ImportError(
                "truebleu's significance tests need NumPy: "
                "pip install 'truebleu[stats]'") from exc
        _NUMPY = np
    return _NUMPY
