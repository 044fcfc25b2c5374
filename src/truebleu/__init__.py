"""truebleu: exact, fast BLEU (and chrF, TER).

Bit-identical to sacreBLEU 2.x by default (``corpus_bleu``, ``sentence_bleu``,
``BLEU``, ``corpus_chrf``, ``sentence_chrf``, ``CHRF`` take the same
arguments), computed by a compiled core when it is available and by a
readable pure-Python specification otherwise.

The public names are loaded on first use, so that ``import truebleu`` costs
next to nothing in programs (and command lines) that only need part of it.
"""

from __future__ import annotations

from ._version import __version__

# public name -> module that defines it
_LAZY = {
    "BLEU": "metrics.bleu",
    "BLEUScore": "metrics.bleu",
    "CHRF": "metrics.chrf",
    "CHRFScore": "metrics.chrf",
    "TER": "metrics.ter",
    "TERScore": "metrics.ter",
    "Statistics": "metrics.bleu.statistics",
    "active_backend": "core.kernels",
    "compute_bleu": "metrics.bleu.score",
    "corpus_bleu": "compat",
    "corpus_chrf": "compat",
    "corpus_ter": "compat",
    "chrf_matrix": "metrics.chrf.batch",
    "sentence_chrf_scores": "metrics.chrf.batch",
    "mbr_select": "metrics.bleu.batch",
    "pairwise_matrix": "metrics.bleu.batch",
    "sentence_scores": "metrics.bleu.batch",
    "raw_corpus_bleu": "compat",
    "sentence_bleu": "compat",
    "sentence_chrf": "compat",
    "sentence_ter": "compat",
    # sacreBLEU's test-set names (thin; see truebleu.utils and truebleu.dataset)
    "DATASETS": "dataset",
    "SACREBLEU_DIR": "utils",
    "download_test_set": "utils",
    "get_available_testsets": "utils",
    "get_langpairs_for_testset": "utils",
    "get_reference_files": "utils",
    "get_source_file": "utils",
    "smart_open": "utils",
}

__all__ = ["__version__", *_LAZY]

# sub-modules reachable as attributes after ``import truebleu`` (as sacreBLEU's, e.g.
# ``sacrebleu.compat.sentence_bleu`` or ``sacrebleu.metrics.BLEU``), imported on first use
_SUBMODULES = ("compat", "dataset", "metrics", "significance", "tokenizers", "utils")


def __getattr__(name: str):
    if name in _LAZY:
        from importlib import import_module

        value = getattr(import_module(f".{_LAZY[name]}", __name__), name)
        globals()[name] = value
        return value
    if name in _SUBMODULES:
        from importlib import import_module

        return import_module(f".{name}", __name__)
    raise AttributeError(f"module 'truebleu' has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_LAZY))


TYPE_CHECKING = False  # not typing.TYPE_CHECKING: importing typing costs milliseconds
if TYPE_CHECKING:
    from .compat import (
        corpus_bleu,
        corpus_chrf,
        corpus_ter,
        raw_corpus_bleu,
        sentence_bleu,
        sentence_chrf,
        sentence_ter,
    )
    from .core.kernels import active_backend
    from .dataset import DATASETS
    from .metrics.bleu.batch import mbr_select, pairwise_matrix, sentence_scores
    from .metrics.bleu.metric import BLEU
    from .metrics.bleu.score import BLEUScore, compute_bleu
    from .metrics.bleu.statistics import Statistics
    from .metrics.chrf.batch import chrf_matrix, sentence_chrf_scores
    from .metrics.chrf.metric import CHRF, CHRFScore
    from .metrics.ter.metric import TER, TERScore
    from .utils import (
        SACREBLEU_DIR,
        download_test_set,
        get_available_testsets,
        get_langpairs_for_testset,
        get_reference_files,
        get_source_file,
        smart_open,
    )
