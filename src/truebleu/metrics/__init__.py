"""sacreBLEU's ``sacrebleu.metrics`` module paths, as thin re-exports.

``from truebleu.metrics import BLEU, CHRF, TER`` works as with sacreBLEU;
so do ``truebleu.metrics.bleu``, ``.chrf``, ``.ter``, ``.base`` and ``.helpers``.
Submodules load on first use.
"""

from __future__ import annotations

_LAZY = {"BLEU": "bleu", "CHRF": "chrf", "TER": "ter"}

__all__ = list(_LAZY)


def __getattr__(name: str):
    if name in _LAZY:
        from importlib import import_module

        value = getattr(import_module(f".{_LAZY[name]}", __name__), name)
        globals()[name] = value
        return value
    raise AttributeError(f"module 'truebleu.metrics' has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_LAZY))
