"""torch and torchmetrics, or an ImportError that says how to install them.

Every module of :mod:`truebleu.torchmetrics` that defines a metric imports them from here,
so that a missing install fails with one clear message, when a class is first used
(``import truebleu.torchmetrics`` itself loads nothing).
"""

from __future__ import annotations

try:
    import torch
    import torchmetrics
    from torchmetrics import Metric
except ImportError as error:  # pragma: no cover - the integration tests run with both installed
    raise ImportError(
        "truebleu.torchmetrics needs torch and torchmetrics (1.9 or later in 1.x): "
        "pip install 'truebleu[torch]'") from error

__all__ = ["Metric", "torch", "torchmetrics"]
