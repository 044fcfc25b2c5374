"""chrF and chrF++ (Popović 2015, 2017): sacreBLEU's ``CHRF`` class on truebleu's layers.

``CHRF(...)`` fixes the configuration; ``corpus_score`` and ``sentence_score``
take text and return a :class:`CHRFScore`; ``corpus_statistics`` gives the
additive rows (``[hyp, ref, match]`` per character order, then per word
order) that significance tests resample. Keyword names and defaults are
sacreBLEU 2.x's; truebleu adds the keyword-only ``backend`` and ``threads``.
The statistics are specified in :mod:`truebleu._reference_chrf`.
"""

from __future__ import annotations

import numbers
from collections.abc import Sequence
from typing import Optional

from .spec import PUNCTUATION, ChrfConfig, f_score
from ...core.backends import get_backend
from ...core.references import check_reference_streams, check_str_sequence, reference_segments
from ...core.signature import ABBREVIATIONS, Signature
from ...core.statistics import RowTable
from ..base import Metric, Score


class CHRFSignature(Signature):
    """chrF's signature: ``nrefs:1|case:mixed|eff:yes|nc:6|nw:0|space:no|version:...``."""

    ABBREVIATIONS = {**{k: v for k, v in ABBREVIATIONS.items() if k != "version"},
                     "nc": "nc", "nw": "nw", "space": "s", "version": "v"}


class CHRFScore(Score):
    """A chrF score: ``score``, ``char_order``, ``word_order``, ``beta``, named ``chrF2++``-style."""

    def __init__(self, score: float, char_order: int, word_order: int, beta: float) -> None:
        self.beta = beta
        self.char_order = char_order
        self.word_order = word_order
        super().__init__(f"chrF{beta}" + "+" * word_order, score)


def _check_order(value, what: str, minimum: int) -> int:
    if isinstance(value, bool) or not isinstance(value, numbers.Integral) or value < minimum:
        raise ValueError(f"{what} must be an integer >= {minimum}, got {value!r}")
    return int(value)


def check_orders(char_order, word_order, *, char_name: str = "char_order",
                 word_name: str = "word_order") -> tuple[int, int]:
    """Both orders as ints, or a ValueError naming the parameter (the command line
    passes its flag names)."""
    char_order = _check_order(char_order, char_name, 0)
    word_order = _check_order(word_order, word_name, 0)
    if char_order + word_order < 1:
        raise ValueError(f"{char_name} + {word_name} must be at least 1")
    return char_order, word_order


class CHRF(Metric):
    """chrF (``word_order=0``) or chrF++ (``word_order=2``), as ``sacrebleu.CHRF``.

    :param char_order: largest character n-gram order (6).
    :param word_order: largest word n-gram order (0: chrF; 2: chrF++).
    :param beta: weight of recall against precision (2).
    :param lowercase: case-insensitive.
    :param whitespace: keep whitespace in character n-grams.
    :param eps_smoothing: chrF++.py/NLTK/Moses smoothing (every order counts);
        default: average over the orders that have n-grams (sacreBLEU's default).
    :param references: reference streams to prepare once and reuse across systems.
    :param backend: ``"native"`` or ``"python"``; default: ``$TRUEBLEU_BACKEND`` or the best available.
    :param threads: worker threads of the native backend (default: the available cores).
    """

    CHAR_ORDER = 6
    WORD_ORDER = 0
    BETA = 2
    _PUNCTS = PUNCTUATION

    def __init__(self, char_order: int = CHAR_ORDER, word_order: int = WORD_ORDER,
                 beta: int = BETA, lowercase: bool = False, whitespace: bool = False,
                 eps_smoothing: bool = False,
                 references: Optional[Sequence[Sequence[str]]] = None, *,
                 backend: Optional[str] = None, threads: Optional[int] = None) -> None:
        super().__init__()
        char_order, word_order = check_orders(char_order, word_order)
        if isinstance(beta, bool) or not isinstance(beta, numbers.Real):
            raise TypeError(f"beta must be a number, got {beta!r}")
        if threads is not None and (isinstance(threads, bool)
                                    or not isinstance(threads, numbers.Integral) or threads < 1):
            raise ValueError(f"threads must be an integer >= 1, got {threads!r}")
        self.char_order = char_order
        self.word_order = word_order
        self.order = char_order + word_order
        self.beta = beta
        self.lowercase = bool(lowercase)
        self.whitespace = bool(whitespace)
        self.eps_smoothing = bool(eps_smoothing)
        self.threads = threads
        self.config = ChrfConfig(char_order, word_order, beta, self.lowercase, self.whitespace,
                                 self.eps_smoothing)
        self._backend = get_backend(backend)
        if references is not None:
            self._ref_cache = self._prepare(references)

    @property
    def name(self) -> str:
        return f"chrF{self.beta}" + "+" * self.word_order

    @property
    def backend(self) -> str:
        """Name of the backend computing the statistics (``native`` or ``python``)."""
        return self._backend.name

    def _prepare(self, references):
        check_reference_streams(references)
        segments, self.num_refs = reference_segments(references)
        return len(segments), self._backend.chrf_prepare(segments, self.config, self.threads)

    # -- statistics ---------------------------------------------------------

    def corpus_statistics(self, hypotheses: Sequence[str],
                          references: Optional[Sequence[Sequence[str]]] = None) -> RowTable:
        """Per-segment statistics of ``hypotheses`` (one row each, in order).

        Without ``references`` the ones given to the constructor are used.
        """
        check_str_sequence(hypotheses, "hypotheses")
        if references is not None:
            n_refs, prepared = self._prepare(references)
        elif self._ref_cache is not None:
            n_refs, prepared = self._ref_cache
        else:
            raise ValueError("no references given, and none were given to CHRF(references=...)")
        if n_refs != len(hypotheses):
            raise ValueError(f"{len(hypotheses)} hypotheses but {n_refs} reference segments")
        return self._backend.chrf_statistics(hypotheses, prepared, self.config, self.threads)

    # -- scores -------------------------------------------------------------

    def score_from_statistics(self, totals: Sequence) -> CHRFScore:
        """chrF from summed statistics (a row of ``3 * (char_order + word_order)`` numbers)."""
        if len(totals) != 3 * self.order:
            raise ValueError(f"expected {3 * self.order} statistics, got {len(totals)}")
        return CHRFScore(f_score(totals, self.beta, self.eps_smoothing), self.char_order,
                         self.word_order, self.beta)

    # -- signature ----------------------------------------------------------

    def get_signature(self) -> CHRFSignature:
        """The reproducibility signature (after scoring: ``nrefs`` is known then)."""
        return CHRFSignature(
            **self._signature_fields(),
            case="lc" if self.lowercase else "mixed",
            eff="no" if self.eps_smoothing else "yes",
            nc=self.char_order,
            nw=self.word_order,
            space="yes" if self.whitespace else "no",
        )
