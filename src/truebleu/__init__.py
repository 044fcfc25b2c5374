"""truebleu: exact, fast BLEU.

Bit-identical to sacreBLEU 2.x by default (``corpus_bleu``, ``sentence_bleu``,
``BLEU`` take the same arguments), computed by a compiled core when it is
available and by a readable pure-Python specification otherwise.
"""

from ._version import __version__
from .backends import active_backend
from .bleu import BLEU
from .compat import corpus_bleu, raw_corpus_bleu, sentence_bleu
from .score import BLEUScore, compute_bleu
from .stats import Statistics

__all__ = [
    "__version__",
    "BLEU",
    "BLEUScore",
    "Statistics",
    "active_backend",
    "compute_bleu",
    "corpus_bleu",
    "raw_corpus_bleu",
    "sentence_bleu",
]
