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
    "release_scratch": "core.kernels",
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
    # token ids (training loops): scored as their written form, "464 3290 13"
    "corpus_bleu_ids": "metrics.token_ids",
    "corpus_chrf_ids": "metrics.token_ids",
    "ids_to_text": "metrics.token_ids",
    "sentence_bleu_ids": "metrics.token_ids",
    "sentence_bleu_ids_scores": "metrics.token_ids",
    "sentence_chrf_ids": "metrics.token_ids",
    "sentence_chrf_ids_scores": "metrics.token_ids",
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


def __getattr__(name: str) -> object:
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
if TYPE_CHECKING:  # the lazy names for type checkers, re-exported (`name as name`)
    from . import compat as compat
    from . import dataset as dataset
    from . import metrics as metrics
    from . import significance as significance
    from . import tokenizers as tokenizers
    from . import utils as utils
    from .compat import corpus_bleu as corpus_bleu
    from .compat import corpus_chrf as corpus_chrf
    from .compat import corpus_ter as corpus_ter
    from .compat import raw_corpus_bleu as raw_corpus_bleu
    from .compat import sentence_bleu as sentence_bleu
    from .compat import sentence_chrf as sentence_chrf
    from .compat import sentence_ter as sentence_ter
    from .core.kernels import active_backend as active_backend
    from .core.kernels import release_scratch as release_scratch
    from .dataset import DATASETS as DATASETS
    from .metrics.bleu.batch import mbr_select as mbr_select
    from .metrics.bleu.batch import pairwise_matrix as pairwise_matrix
    from .metrics.bleu.batch import sentence_scores as sentence_scores
    from .metrics.bleu.metric import BLEU as BLEU
    from .metrics.bleu.score import BLEUScore as BLEUScore
    from .metrics.bleu.score import compute_bleu as compute_bleu
    from .metrics.bleu.statistics import Statistics as Statistics
    from .metrics.chrf.batch import chrf_matrix as chrf_matrix
    from .metrics.chrf.batch import sentence_chrf_scores as sentence_chrf_scores
    from .metrics.chrf.metric import CHRF as CHRF
    from .metrics.chrf.metric import CHRFScore as CHRFScore
    from .metrics.ter.metric import TER as TER
    from .metrics.ter.metric import TERScore as TERScore
    from .metrics.token_ids import corpus_bleu_ids as corpus_bleu_ids
    from .metrics.token_ids import corpus_chrf_ids as corpus_chrf_ids
    from .metrics.token_ids import ids_to_text as ids_to_text
    from .metrics.token_ids import sentence_bleu_ids as sentence_bleu_ids
    from .metrics.token_ids import sentence_bleu_ids_scores as sentence_bleu_ids_scores
    from .metrics.token_ids import sentence_chrf_ids as sentence_chrf_ids
    from .metrics.token_ids import sentence_chrf_ids_scores as sentence_chrf_ids_scores
    from .utils import SACREBLEU_DIR as SACREBLEU_DIR
    from .utils import download_test_set as download_test_set
    from .utils import get_available_testsets as get_available_testsets
    from .utils import get_langpairs_for_testset as get_langpairs_for_testset
    from .utils import get_reference_files as get_reference_files
    from .utils import get_source_file as get_source_file
    from .utils import smart_open as smart_open
