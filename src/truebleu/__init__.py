"""truebleu: exact, fast BLEU.

Bit-identical to sacreBLEU 2.x by default (``corpus_bleu``, ``sentence_bleu``,
``BLEU`` take the same arguments), computed by a compiled core when it is
available and by a readable pure-Python specification otherwise.

The public names are loaded on first use, so that ``import truebleu`` costs
next to nothing in programs (and command lines) that only need part of it.
"""

from __future__ import annotations

from ._version import __version__

# public name -> module that defines it
_LAZY = {
    "BLEU": "bleu",
    "BLEUScore": "score",
    "Statistics": "stats",
    "TER": "metrics.ter",
    "TERScore": "metrics.ter",
    "active_backend": "backends",
    "compute_bleu": "score",
    "corpus_bleu": "compat",
    "corpus_ter": "compat",
    "mbr_select": "batch",
    "pairwise_matrix": "batch",
    "sentence_scores": "batch",
    "raw_corpus_bleu": "compat",
    "sentence_bleu": "compat",
    "sentence_ter": "compat",
}

__all__ = ["__version__", *_LAZY]


def __getattr__(name: str):
    if name in _LAZY:
        from importlib import import_module

        value = getattr(import_module(f".{_LAZY[name]}", __name__), name)
        globals()[name] = value
        return value
    raise AttributeError(f"module 'truebleu' has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_LAZY))


TYPE_CHECKING = False  # not typing.TYPE_CHECKING: importing typing costs milliseconds
if TYPE_CHECKING:
    from .backends import active_backend
    from .bleu import BLEU
    from .batch import mbr_select, pairwise_matrix, sentence_scores
    from .compat import corpus_bleu, corpus_ter, raw_corpus_bleu, sentence_bleu, sentence_ter
    from .metrics.ter import TER, TERScore
    from .score import BLEUScore, compute_bleu
    from .stats import Statistics
